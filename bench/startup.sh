#!/bin/sh
# bench/startup.sh: what a program pays to start, CUDA or not: the seconds
# and the peak memory (GNU time's maximum resident set) of `tcstat --help`
# and of a small product on the CPU, `tcmul --device cpu --cols 32 --verify`
# on 1138_bus. libtcsparse loads its GPU library only when a call needs the
# GPU (libtcsparse(3), GPU LIBRARY), so neither should load CUDA.
#
#   bench/startup.sh BUILD_DIR LABEL [RUNS]
#
# Runs each command RUNS times (default 7) through the real binaries of
# BUILD_DIR's tools/.libs (not libtool's wrapper scripts, whose shell would
# be timed too) and appends one row per program to bench/results/startup.tsv:
# host, date, commit, LABEL (the build: "cuda", "nocuda", ...), program, the
# median wall-clock seconds (GNU time's own start included: a millisecond),
# the largest max RSS (KiB) and the command. Needs GNU time (/usr/bin/time;
# Debian: apt-get install time).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
[ $# -ge 2 ] || { echo "usage: bench/startup.sh BUILD_DIR LABEL [RUNS]" >&2; exit 2; }
build=$(cd "$1" && pwd)
label=$2
runs=${3:-7}
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time (GNU time) not found" >&2; exit 1; }
data=${TC_SHARED_DATA:-$here/../shared/data}
matrix=$data/1138_bus.mtx.gz
[ -r "$matrix" ] || { echo "$0: $matrix: not found (set TC_SHARED_DATA)" >&2; exit 1; }
out=$here/bench/results/startup.tsv
[ -s "$out" ] || printf 'host\tdate\tcommit\tbuild\tprogram\tseconds\tmax_rss_kb\tcommand\n' > "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure PROGRAM ARGS...: one row for tools/PROGRAM.
measure() {
    prog=$1
    shift
    bin=$build/tools/.libs/$prog
    [ -x "$bin" ] || bin=$build/tools/.libs/lt-$prog
    [ -x "$bin" ] || bin=$build/tools/$prog
    : > "$tmp/runs"
    i=0
    while [ $i -lt "$runs" ]; do
        t0=$(date +%s%N)
        LD_LIBRARY_PATH=$build/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
            /usr/bin/time -f '%M' -o "$tmp/rss" "$bin" "$@" > /dev/null 2>&1 ||
            { echo "$0: $prog $*: failed" >&2; exit 1; }
        t1=$(date +%s%N)
        echo "$(((t1 - t0) / 1000)) $(cat "$tmp/rss")" >> "$tmp/runs"
        i=$((i + 1))
    done
    seconds=$(sort -n "$tmp/runs" |
        awk '{ s[NR] = $1 } END { printf "%.4f", s[int((NR + 1) / 2)] / 1e6 }')
    rss=$(sort -k2,2n "$tmp/runs" | tail -n 1 | cut -d' ' -f2)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(bench_host)" "$(bench_date)" \
        "$(bench_commit)" "$label" "$prog" "$seconds" "$rss" "$prog $(echo "$*" | sed "s|$data/||")" >> "$out"
    echo "$label $prog: ${seconds} s, ${rss} KiB"
}

measure tcstat --help
measure tcmul --device cpu --cols 32 --verify "$matrix"
