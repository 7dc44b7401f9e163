#!/bin/bash
# Issue 25, target 1 on the GPU host in one call: a SIZE CSV of 8 numeric
# columns (colstat_gen) as one gzip member and as one member per ~1.2 MB,
# `--sum --max` end to end against `rapidgzip -P <cores>` inflating alone
# to /dev/null, in the same run, alternated RUNS times, medians.
#   colstat   each build in BUILDS (NAME=DIR; default new=$NEW) with each
#             --device in DEVICES;
#   limits    rapidgzip -P <cores> and colstat_gzcat -j <cores> to
#             /dev/null, the bytes checked against the plain file once;
#   pipe      with PIPE=1, `zcat F | colstat -c value --sum --max` with
#             each build and device against `zcat F > /dev/null` (issue
#             25's target 5).
# Every colstat answer is compared with the plain file's (--device cpu).
# Logs in $OUT/logs (-v and peak RSS of every run), the table in
# $OUT/summary.txt.
# usage (on the device machine, from the tree):
#   NEW=.carry/g2 RG=.carry/rg OUT=... SIZE=1G RUNS=3 bash bench/device_gzip.sh
# NEW holds a static build (colstat, colstat_gzcat, colstat_gen) and
# libisal.so.2; RG the rapidgzip wheel (bench/README.md).
set -u
N=${NEW:-.carry/g2}
BUILDS=${BUILDS:-"new=$N"}
RG=${RG:-.carry/rg}
OUT=${OUT:-/tmp/colstat-out}
SIZE=${SIZE:-1G}
RUNS=${RUNS:-3}
DEVICES=${DEVICES:-"gpu cpu"}
cd "$(dirname "$0")/.." || exit 1
. bench/device_lib.sh
device_setup /tmp/p25gz "$N"
P=$(nproc)
python3 -m pip install -q --no-index "$RG"/rapidgzip-*.whl >"$L/pip.log" 2>&1
RGZ=$(command -v rapidgzip || echo "$HOME/.local/bin/rapidgzip")
"$N/colstat_gen" --bytes "$SIZE" --seed 7 --threads "$P" --out $D \
    --files csv,gz,multi >"$L/gen.log" 2>&1
ls -l $D >>"$S"
"$N/colstat" --device cpu --sum --max --json $D/bench.csv >$D/want.json


declare -A T
add() { T[$1]="${T[$1]:-} $2"; }
med() { echo "$@" | tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for f in bench.csv.gz bench.multi.csv.gz; do
    cmp <("$RGZ" -d -c -P "$P" $D/$f) $D/bench.csv && echo "$f rapidgzip bytes ok" >>"$S"
    "$N/colstat_gzcat" -j "$P" -o $D/out.csv $D/$f >/dev/null &&
        cmp $D/out.csv $D/bench.csv && echo "$f colstat_gzcat bytes ok" >>"$S"
    rm -f $D/out.csv
    for r in $(seq "$RUNS"); do
        read -r rc t < <(timed /dev/null "$L/rg.$f.$r" "$RGZ" -d -c -P "$P" $D/$f)
        add "$f rapidgzip -P$P" "$t"
        read -r rc t < <(timed /dev/null "$L/gzcat.$f.$r" "$N/colstat_gzcat" -j "$P" -o /dev/null $D/$f)
        add "$f colstat_gzcat -j$P" "$t"
        if [ "${PIPE:-0}" = 1 ]; then
            read -r rc t < <(timed /dev/null "$L/zcat.$f.$r" sh -c "zcat $D/$f")
            add "$f zcat > /dev/null" "$t"
            for b in $BUILDS; do
                for dev in $DEVICES; do
                    read -r rc t < <(timed /dev/null "$L/${b%%=*}.$dev.pipe.$f.$r" sh -c "zcat $D/$f | ${b#*=}/colstat --device $dev -v -c value --sum --max")
                    add "$f pipe zcat to colstat ${b%%=*} --device $dev -c value" "$t"
                done
            done
        fi
        for b in $BUILDS; do
            for dev in $DEVICES; do
                key="$f colstat ${b%%=*} --device $dev"
                read -r rc t < <(timed $D/got.json "$L/${b%%=*}.$dev.$f.$r" "${b#*=}/colstat" --device "$dev" -v --sum --max --json $D/$f)
                cmp -s $D/got.json $D/want.json || echo "MISMATCH $key run $r rc=$rc" >>"$S"
                add "$key" "$t"
            done
        done
    done
done
{
    echo
    echo "medians of $RUNS runs, wall seconds; x rapidgzip = colstat / rapidgzip (same input, same run)"
    for k in "${!T[@]}"; do echo "$k|$(med ${T[$k]})|${T[$k]}"; done | sort |
        while IFS='|' read -r k m all; do
            f=${k%% *}
            rg=$(med ${T["$f rapidgzip -P$P"]})
            printf '%-52s %7.3f  x rapidgzip %5.2f  (%s)\n' "$k" "$m" "$(awk -v a="$m" -v b="$rg" 'BEGIN {print a / b}')" "$all"
        done
} | tee -a "$S"
