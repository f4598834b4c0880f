# bench/lib.sh: what every bench/*.sh records about a run, so that each row
# of bench/results/ says where and from what it came. Source it after
# setting $here to the source tree.

# The commit measured: $COMMIT when set (the GPU machine gets a copy of the
# tree without .git), else git's short HEAD, with "-dirty" when files other
# than the recorded results differ from it.
bench_commit() {
    if [ -n "${COMMIT:-}" ]; then
        echo "$COMMIT"
        return
    fi
    _c=$(git -C "$here" rev-parse --short HEAD 2>/dev/null) || { echo uncommitted; return; }
    if [ -n "$(git -C "$here" status --porcelain -- . ':!bench/results' 2>/dev/null)" ]; then
        _c=$_c-dirty
    fi
    echo "$_c"
}

# "AMD EPYC (2 CPUs)": the CPU model and how many there are.
bench_host() {
    _h=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
    echo "${_h:-$(uname -m)} ($(nproc) CPUs)"
}

bench_date() { date -u +%Y-%m-%dT%H:%M:%SZ; }
