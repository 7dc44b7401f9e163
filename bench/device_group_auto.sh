#!/bin/bash
# --device auto with -g on the GPU host: a 500 MB and a 2 GB CSV of 1,000
# keys, auto against cpu and gpu (times, -v choice, JSON compared), then
# the group-by suites with the GPU present. usage: bash bench/device_group_auto.sh
export LD_LIBRARY_PATH=$PWD/.carry/house
N=.carry/house; D=/tmp/ad; mkdir -p $D
$N/colstat_gen --bytes 2G --out $D --files csv --threads 16 >/dev/null
awk 'BEGIN{srand(22)} NR==1{print "key,"$0;next}{print "k" int(rand()*1000) "," $0}' $D/bench.csv > $D/k2g.csv
head -n 6800000 $D/k2g.csv > $D/k500m.csv
cat $D/k2g.csv $D/k500m.csv > /dev/null
TIMEFORMAT='%R s'
for f in k500m k2g; do
  for dev in auto cpu gpu auto; do
    t=$( { time $N/colstat --device $dev -v -g key --sum --min --max --json $D/$f.csv > $D/$f.$dev.json 2> $D/$f.$dev.err; } 2>&1 )
    echo "$f ($(du -h $D/$f.csv | cut -f1)) --device $dev: $t; $(grep -E 'auto chose' $D/$f.$dev.err)"
  done
  cmp -s $D/$f.auto.json $D/$f.cpu.json && cmp -s $D/$f.gpu.json $D/$f.cpu.json && echo "$f: auto, gpu and cpu JSON identical"
done
python3 tests/e2e/e2e_groupby.py $N/colstat 2>&1 | tail -1
python3 tests/e2e/e2e_groupby_device.py $N/colstat 2>&1 | tail -1
