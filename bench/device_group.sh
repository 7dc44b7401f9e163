#!/bin/bash
# Group-by on the GPU host in one call: the device group-by suite
# (test_gpu_group, gpu/group_rows.cu against the CPU's group table) and
# its host twin (test_group_core), compute-sanitizer over the device one,
# the end-to-end suites that compare CPU and GPU with -g (e2e_gpu_diff,
# e2e_groupby_device) or check -g against the exact reference with a GPU
# present, and
# group-by's speed: a SIZE CSV of 8 numeric columns and a key column of
# 1,000 and of 1,000,000 keys, `-g key --sum --min --max` with --device
# gpu and --device cpu (JSON compared byte for byte) against DuckDB (all
# cores) running GROUP BY key with sum, min, max of the 8 columns.
# Parts (PARTS, any of): unit, sanraw (compute-sanitizer over the raw
# path's group kernels, with sums and with medians), e2e (E2E: the
# suites), speed, repeat (the 1,000-key file REPEAT times over), median
# (per-group median of one column against DuckDB's quantile_cont, the
# MKEYS-key file MREP times over), polars (Polars' streaming group_by,
# its wheel in .carry/polars), gpucsv (the ungrouped raw path's suites),
# anatomy (the 16 GB 1,000-key run's wall by -v line, segment sizes SEGS).
# Logs in $OUT/logs.tgz, a summary in $OUT/summary.txt.
#
# usage (on the device machine, from the tree):
#   NEW=.carry/gpugroup OUT=... SIZE=2G PARTS="unit e2e speed" bash bench/device_group.sh
# OLD=folder: its colstat timed too with --device gpu (OLD_DEVICE; its
# JSON against the new one's); KEYS="1000 1000000" the key counts; RUNS per timing.
# NEW holds the static build (colstat, colstat_gen, test_gpu_group,
# test_group_core, libisal.so.2); .carry/wheels DuckDB's wheel.
set -u
N=${NEW:-.carry/gpugroup}
OUT=${OUT:-/tmp/colstat-out}
SIZE=${SIZE:-2G}
RUNS=${RUNS:-3}
L=$OUT/logs
S=$OUT/summary.txt
mkdir -p "$L"
cd "$(dirname "$0")/.." || exit 1
export LD_LIBRARY_PATH=$PWD/$N:${LD_LIBRARY_PATH:-}
say() { echo "$*" | tee -a "$S"; }
{
    date -u
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
    nproc
} >"$S" 2>&1
cat "$S"

PARTS=${PARTS:-"unit sanraw e2e speed"}
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

# keyed K: /tmp/group-data/keysK.csv made (once) and read into the page
# cache: the SIZE file of 8 numeric columns with a key column in front,
# "k" and a random number below K
D=/tmp/group-data
keyed() {
    mkdir -p $D
    [ -s $D/bench.csv ] || "$N/colstat_gen" --bytes "$SIZE" --out $D --files csv \
        --threads "$(nproc)" >/dev/null
    [ -s $D/keys$1.csv ] || awk -v K=$1 'BEGIN { srand(22) }
        NR == 1 { print "key," $0; next }
        { print "k" int(rand() * K) "," $0 }' $D/bench.csv >$D/keys$1.csv
    cat $D/keys$1.csv >/dev/null
}

if has unit; then
    say "== group-by unit suites"
    for t in test_gpu_group test_group_core; do
        timeout 200 "$N/$t" >"$L/$t.log" 2>&1
        say "$t rc=$? $(grep -E 'Checks' "$L/$t.log" | tail -1)"
    done
    for tool in ${SAN:-memcheck racecheck synccheck}; do
        COLSTAT_TEST_QUICK=1 timeout 200 compute-sanitizer --tool $tool \
            --error-exitcode 9 "$N/test_gpu_group" >"$L/san_$tool.log" 2>&1
        say "$tool test_gpu_group rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/san_$tool.log" | head -1)"
    done
fi

if has sanraw; then
    # the raw path's group kernels (gpu/group_raw.cu) under the sanitizer:
    # 8 MB of CSV in 1 MB segments, 500 keys, JSON against the CPU's
    SD=/tmp/san-data
    mkdir -p $SD
    [ -s $SD/k.csv ] || { "$N/colstat_gen" --bytes 8M --out $SD --files csv >/dev/null &&
        awk 'BEGIN { srand(5) } NR == 1 { print "key," $0; next }
             { print "k" int(rand() * 500) "," $0 }' $SD/bench.csv >$SD/k.csv; }
    "$N/colstat" --device cpu -g key --sum --min --max --json $SD/k.csv >"$L/san_cpu.json"
    for tool in ${SAN:-memcheck racecheck synccheck}; do
        COLSTAT_GPU_RAW_BYTES=1000000 timeout 300 compute-sanitizer --tool $tool \
            --error-exitcode 9 "$N/colstat" --device gpu -v -g key --sum --min \
            --max --json $SD/k.csv >"$L/san_raw_$tool.out" 2>"$L/san_raw_$tool.log"
        rc=$?
        # the sanitizer's own lines go to stdout too
        grep -v '^=========' "$L/san_raw_$tool.out" >"$L/san_raw_$tool.json"
        cmp -s "$L/san_cpu.json" "$L/san_raw_$tool.json" && same=identical || same=DIFFERS
        say "$tool colstat -g (raw CSV) rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/san_raw_$tool.out" | head -1); JSON $same to the CPU's; $(grep -c 'grouped on the device' "$L/san_raw_$tool.log") device line"
    done
    # 100,000 keys: the groups' state (about 170 MB) comes back through
    # gpu/pull.cu's threads and page-locked stages
    [ -s $SD/k100k.csv ] || awk 'BEGIN { srand(6) } NR == 1 { print "key," $0; next }
        { print "k" int(rand() * 100000) "," $0 }' $SD/bench.csv >$SD/k100k.csv
    "$N/colstat" --device cpu -g key --sum --min --max --json $SD/k100k.csv >"$L/san_cpu_many.json"
    for tool in ${SAN:-memcheck racecheck synccheck}; do
        timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 \
            "$N/colstat" --device gpu -v -g key --sum --min --max --json \
            $SD/k100k.csv >"$L/san_many_$tool.out" 2>"$L/san_many_$tool.log"
        rc=$?
        grep -v '^=========' "$L/san_many_$tool.out" >"$L/san_many_$tool.json"
        cmp -s "$L/san_cpu_many.json" "$L/san_many_$tool.json" && same=identical || same=DIFFERS
        say "$tool colstat -g, 100,000 keys (raw CSV) rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/san_many_$tool.out" | head -1); JSON $same to the CPU's; $(grep -c 'grouped on the device' "$L/san_many_$tool.log") device line"
    done
    # the kept values' path (keep_kernel, gpu/group_values.cu) with medians
    "$N/colstat" --device cpu -g key --median --quantiles 0.1,0.9 --json $SD/k.csv >"$L/san_cpu_q.json"
    for tool in ${SAN:-memcheck racecheck synccheck}; do
        COLSTAT_GPU_RAW_BYTES=1000000 timeout 300 compute-sanitizer --tool $tool \
            --error-exitcode 9 "$N/colstat" --device gpu -v -g key --median \
            --quantiles 0.1,0.9 --json $SD/k.csv >"$L/san_q_$tool.out" 2>"$L/san_q_$tool.log"
        rc=$?
        grep -v '^=========' "$L/san_q_$tool.out" >"$L/san_q_$tool.json"
        cmp -s "$L/san_cpu_q.json" "$L/san_q_$tool.json" && same=identical || same=DIFFERS
        say "$tool colstat -g --median (raw CSV) rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/san_q_$tool.out" | head -1); JSON $same to the CPU's; $(grep -c 'grouped on the device' "$L/san_q_$tool.log") device line"
    done
fi

if has e2e; then
    say "== end-to-end with a GPU present"
    for t in ${E2E:-e2e_gpu_diff e2e_groupby_device e2e_groupby_binary e2e_groupby}; do
        start=$(date +%s)
        timeout 240 python3 tests/e2e/$t.py "$N/colstat" >"$L/$t.log" 2>&1
        say "$t rc=$? $(($(date +%s) - start)) s: $(tail -1 "$L/$t.log")"
    done
fi

if has speed; then
    python3 -m pip install --no-index --find-links .carry/wheels duckdb >"$L/pip.log" 2>&1
    for K in ${KEYS:-1000 1000000}; do
        keyed $K
        F=$D/keys$K.csv
        say "== $(du -h "$F" | cut -f1) CSV, $K keys, -g key --sum --min --max (best of $RUNS)"
        python3 - "$N/colstat" "$F" "$RUNS" "${OLD:-}" <<'PY' 2>&1 | tee -a "$S"
import json, os, subprocess, sys, time
exe, path, runs, old = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
gb = os.path.getsize(path) / 1e9
cols = ["id", "price", "delta", "reading", "value", "sci", "count", "sparse"]

def best(f):
    t, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = f()
        t.append(time.perf_counter() - t0)
    return min(t), out

def colstat(dev, prog=exe):
    # stdout to a file, as `colstat ... > out.json` (a pipe into Python
    # would time Python's reading of a million groups' 1.7 GB too)
    def f():
        with open("/tmp/speed-out.json", "wb") as o:
            p = subprocess.run([prog, "--device", dev, "-g", "key", "--sum",
                                "--min", "--max", "--json", path], stdout=o)
        return p.returncode
    def g():
        t, rc = best(f)
        return t, (rc, open("/tmp/speed-out.json", "rb").read())
    return g

res = {}
for dev in ("gpu", "cpu"):
    t, (rc, out) = colstat(dev)()
    res[dev] = out
    print(f"colstat --device {dev}: {t:.3f} s ({gb / t:.2f} GB/s) rc={rc}")
print("GPU and CPU JSON " + ("identical" if res["gpu"] == res["cpu"] else "DIFFER"))
if old:
    t, (rc, out) = colstat(os.environ.get("OLD_DEVICE", "gpu"), old + "/colstat")()
    print(f"old colstat --device {os.environ.get('OLD_DEVICE', 'gpu')}: {t:.3f} s "
          f"({gb / t:.2f} GB/s) rc={rc}, "
          "JSON " + ("identical" if out == res["cpu"] else "DIFFERS"))
p = subprocess.run([exe, "--device", "gpu", "-v", "-g", "key", "--sum", path],
                   capture_output=True, text=True)
print("-v: " + " | ".join(l for l in p.stderr.splitlines() if any(w in l for w in ("group", "stream", "total", "GPU", "parsed"))))
try:
    import duckdb
except ImportError:
    print("duckdb: not installed (no wheel in .carry/wheels)")
    sys.exit(0)
sel = ", ".join(f"sum({c}), min({c}), max({c})" for c in cols)
def duck():
    con = duckdb.connect()
    return con.execute(f"SELECT key, {sel} FROM read_csv_auto('{path}') "
                       "GROUP BY key").fetchall()
t, rows = best(duck)
print(f"duckdb GROUP BY key ({os.cpu_count()} threads): {t:.3f} s ({gb / t:.2f} GB/s), "
      f"{len(rows)} groups")
doc = json.loads(res["gpu"] or b"{}")
print(f"colstat groups: {len(doc.get('groups', []))}")
PY
    done
fi

if has repeat; then
    # the 1,000-key file REPEAT times over (16 GB from 2 GB: one file in the
    # page cache, read as REPEAT inputs), one run each: GPU, CPU, DuckDB
    python3 -m pip install --no-index --find-links .carry/wheels duckdb >"$L/pip.log" 2>&1
    keyed 1000
    F=$D/keys1000.csv
    say "== $F x ${REPEAT:-8}, -g key --sum --min --max"
    python3 - "$N/colstat" "$F" "${REPEAT:-8}" <<'PY' 2>&1 | tee -a "$S"
import os, subprocess, sys, time
exe, path, rep = sys.argv[1], sys.argv[2], int(sys.argv[3])
gb = os.path.getsize(path) * rep / 1e9
cols = ["id", "price", "delta", "reading", "value", "sci", "count", "sparse"]
out = {}
for dev in ("gpu", "cpu"):
    t0 = time.perf_counter()
    p = subprocess.run([exe, "--device", dev, "-v", "-g", "key", "--sum", "--min",
                        "--max", "--json"] + [path] * rep, capture_output=True)
    t = time.perf_counter() - t0
    out[dev] = p.stdout
    print(f"colstat --device {dev}: {t:.3f} s ({gb / t:.2f} GB/s) rc={p.returncode}")
    print("  -v: " + " | ".join(l for l in p.stderr.decode().splitlines()
                                if "GPU  " in l or "total" in l))
print("GPU and CPU JSON " + ("identical" if out["gpu"] == out["cpu"] else "DIFFER"))
import duckdb
sel = ", ".join(f"sum({c}), min({c}), max({c})" for c in cols)
files = ", ".join(f"'{path}'" for _ in range(rep))
t0 = time.perf_counter()
rows = duckdb.connect().execute(f"SELECT key, {sel} FROM read_csv_auto([{files}]) "
                                "GROUP BY key").fetchall()
t = time.perf_counter() - t0
print(f"duckdb GROUP BY key ({os.cpu_count()} threads): {t:.3f} s ({gb / t:.2f} GB/s), "
      f"{len(rows)} groups")
PY
fi

if has anatomy; then
    # where the 16 GB 1,000-key run's wall goes: each -v line's time after
    # the start, the exit's, for segment sizes SEGS (COLSTAT_GPU_RAW_BYTES;
    # "-" the default) and the same inputs without -g; RUNS each
    keyed 1000
    F=$D/keys1000.csv
    say "== anatomy: $F x ${REPEAT:-8}, --device gpu, stdout to a file"
    python3 - "$N/colstat" "$F" "${REPEAT:-8}" "${SEGS:--}" "$RUNS" <<'PY' 2>&1 | tee -a "$S"
import os, subprocess, sys, time
exe, path, rep, segs, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(), int(sys.argv[5])
gb = os.path.getsize(path) * rep / 1e9
keep = ("GPU  ", "total", "finish", "stream", "kernels", "h2d", "groups  ")
for grouped in (True, False):
    for seg in segs:
        env = dict(os.environ)
        if seg != "-":
            env["COLSTAT_GPU_RAW_BYTES"] = seg
        args = [exe, "--device", "gpu", "-v", "--sum", "--min", "--max", "--json"]
        args += (["-g", "key"] if grouped else []) + [path] * rep
        for _ in range(runs):
            with open("/tmp/anatomy.json", "w") as out:
                t0 = time.perf_counter()
                p = subprocess.Popen(args, stdout=out, stderr=subprocess.PIPE, env=env)
                lines = []
                for raw in p.stderr:
                    lines.append((time.perf_counter() - t0, raw.decode().rstrip()))
                p.wait()
                t = time.perf_counter() - t0
            first = lines[0][0] if lines else 0
            tot = [at for at, l in lines if "total" in l]
            print(f"{'-g key' if grouped else 'no -g  '} segment {seg}: wall {t:.3f} s "
                  f"({gb / t:.2f} GB/s) rc={p.returncode}; first -v line at {first:.3f} s, "
                  f"total line at {tot[-1] if tot else -1:.3f} s, exit {t - (tot[-1] if tot else 0):.3f} s after it")
            for at, l in lines:
                if any(k in l for k in keep):
                    print(f"   {at:7.3f} {l}")
PY
fi

if has median; then
    # per-group median of one column (issue 22: >= 10x DuckDB's
    # quantile_cont(x, 0.5) GROUP BY key): the MKEYS-key file MREP times
    # over, one run each: GPU, CPU, DuckDB; medians compared
    python3 -m pip install --no-index --find-links .carry/wheels duckdb >"$L/pip.log" 2>&1
    for K in ${MKEYS:-1000}; do
        keyed $K
        F=$D/keys$K.csv
        say "== $F x ${MREP:-8}, $K keys, -g key -c value --median"
        python3 - "$N/colstat" "$F" "${MREP:-8}" "${MDEV:-gpu cpu}" <<'PY' 2>&1 | tee -a "$S"
import json, os, subprocess, sys, time
exe, path, rep, devs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split()
gb = os.path.getsize(path) * rep / 1e9
out = {}
for dev in devs:
    t0 = time.perf_counter()
    with open(f"/tmp/median-{dev}.json", "wb") as f:
        p = subprocess.run([exe, "--device", dev, "-v", "-g", "key", "-c", "value",
                            "--median", "--json"] + [path] * rep, stdout=f,
                           stderr=subprocess.PIPE)
    t = time.perf_counter() - t0
    out[dev] = open(f"/tmp/median-{dev}.json", "rb").read()
    print(f"colstat --device {dev}: {t:.3f} s ({gb / t:.2f} GB/s) rc={p.returncode}")
    print("  -v: " + " | ".join(l for l in p.stderr.decode().splitlines()
                                if any(w in l for w in ("GPU  ", "total", "groups", "runs on"))))
if len(out) > 1:
    print("GPU and CPU JSON " + ("identical" if out["gpu"] == out["cpu"] else "DIFFER"))
import duckdb
files = ", ".join(f"'{path}'" for _ in range(rep))
t0 = time.perf_counter()
rows = duckdb.connect().execute(
    f"SELECT key, quantile_cont(value, 0.5) FROM read_csv_auto([{files}]) "
    "GROUP BY key").fetchall()
t = time.perf_counter() - t0
print(f"duckdb quantile_cont(value, 0.5) GROUP BY key ({os.cpu_count()} threads): "
      f"{t:.3f} s ({gb / t:.2f} GB/s), {len(rows)} groups")
doc = json.loads(out[devs[0]] or b"{}")
mine = {g["key"][0]: g["columns"][0].get("median") for g in doc.get("groups", [])}
bad = [k for k, m in rows if mine.get(k) is None or
       abs(mine[k] - m) > 1e-12 * max(abs(m), 1e-300)]
print(f"medians against DuckDB's: {len(rows) - len(bad)} agree, {len(bad)} differ "
      f"{bad[:3]}")
PY
    done
fi

if has polars; then
    # Polars' streaming group_by (issue 22: >= 3x it), its wheel in
    # .carry/polars: the 1,000-key file MREP times over with sum, min, max
    # of the 8 columns, and the 200,000-key file with the median of one;
    # one run each, colstat's GPU first; answers compared
    python3 -m pip install --no-index --find-links .carry/polars polars >"$L/pip_polars.log" 2>&1
    for K in 1000 200000; do
        keyed $K
    done
    say "== Polars streaming group_by against colstat --device gpu, x ${MREP:-8}"
    python3 - "$N/colstat" "$D" "${MREP:-8}" <<'PY' 2>&1 | tee -a "$S"
import json, os, subprocess, sys, time
exe, d, rep = sys.argv[1], sys.argv[2], int(sys.argv[3])
import polars as pl
print(f"polars {pl.__version__}, {pl.thread_pool_size()} threads")
cols = ["id", "price", "delta", "reading", "value", "sci", "count", "sparse"]
def colstat(args, files):
    t0 = time.perf_counter()
    with open("/tmp/polars-colstat.json", "wb") as f:
        p = subprocess.run([exe, "--device", "gpu", "--json"] + args + files,
                           stdout=f, stderr=subprocess.PIPE)
    t = time.perf_counter() - t0
    return t, p.returncode, json.load(open("/tmp/polars-colstat.json"))
for K, what in ((1000, "sum"), (200000, "median")):
    files = [f"{d}/keys{K}.csv"] * rep
    gb = os.path.getsize(files[0]) * rep / 1e9
    if what == "sum":
        t, rc, doc = colstat(["-g", "key", "--sum", "--min", "--max"], files)
        aggs = [e for c in cols for e in (pl.col(c).sum().alias(c + "_sum"),
                                          pl.col(c).min().alias(c + "_min"),
                                          pl.col(c).max().alias(c + "_max"))]
    else:
        t, rc, doc = colstat(["-g", "key", "-c", "value", "--median"], files)
        aggs = [pl.col("value").median().alias("value_median")]
    print(f"{K} keys, {what}: colstat --device gpu {t:.3f} s ({gb / t:.2f} GB/s) rc={rc}")
    t0 = time.perf_counter()
    out = pl.scan_csv(files).group_by("key").agg(aggs).collect(engine="streaming")
    tp = time.perf_counter() - t0
    print(f"{K} keys, {what}: polars streaming group_by {tp:.3f} s ({gb / tp:.2f} GB/s), "
          f"{out.height} groups; polars / colstat {tp / t:.2f}")
    mine = {g["key"][0]: g["columns"] for g in doc["groups"]}
    bad = 0
    for row in out.iter_rows(named=True):
        cs = {c["name"]: c for c in mine.get(row["key"], [])}
        for name, v in row.items():
            if name == "key":
                continue
            c, stat = name.rsplit("_", 1)
            m = cs.get(c, {}).get(stat)
            m = m["value"] if isinstance(m, dict) else m
            if m is None or v is None or abs(float(m) - float(v)) > 1e-9 * max(abs(float(v)), 1e-300):
                bad += 1
    print(f"  answers against Polars': {out.height} groups, {bad} values differ")
PY
fi

if has gpucsv; then
    say "== the ungrouped raw path (gpu/csv_kernel.cu's parse and end, split)"
    for t in test_gpu test_gpu_parse; do
        [ -x "$N/$t" ] || continue
        timeout 200 "$N/$t" >"$L/$t.log" 2>&1
        say "$t rc=$? $(grep -E 'Checks' "$L/$t.log" | tail -1)"
    done
    start=$(date +%s)
    timeout 300 python3 tests/e2e/e2e_gpu_csv.py "$N/colstat" >"$L/e2e_gpu_csv.log" 2>&1
    say "e2e_gpu_csv rc=$? $(($(date +%s) - start)) s: $(tail -1 "$L/e2e_gpu_csv.log")"
fi

tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
