# Sourced by the bench/device_*.sh scripts that share this preamble: from
# the repository root (cd there first), `device_setup DATA BUILD` makes
# $OUT/logs ($L), the summary $OUT/summary.txt ($S) headed with the date,
# the GPU and the cores, and the data folder DATA ($D); puts BUILD's
# libraries (libisal.so.2) on the loader's path; and gives say (a line to
# the terminal and the summary) and has (whether PARTS names a part).
device_setup() {
    L=$OUT/logs
    S=$OUT/summary.txt
    D=$1
    mkdir -p "$L" "$D"
    export LD_LIBRARY_PATH=$PWD/$2:${LD_LIBRARY_PATH:-}
    {
        date -u
        nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
        echo "cores $(nproc), commit $(git rev-parse --short HEAD 2>/dev/null)"
    } >"$S" 2>&1
    cat "$S"
}
say() { echo "$*" | tee -a "$S"; }
# timed OUT ERR CMD...: runs CMD (stdout to OUT, stderr and its peak RSS
# to ERR) and prints its exit status and wall seconds
timed() {
    local out=$1 err=$2 t0 t1 rc
    shift 2
    t0=$(date +%s.%N)
    /usr/bin/time -f "rss_kb %M" "$@" >"$out" 2>"$err"
    rc=$?
    t1=$(date +%s.%N)
    echo "$rc $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')"
}
has() { case " ${PARTS:-} " in *" $1 "*) return 0 ;; esac; return 1; }
