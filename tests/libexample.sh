#!/bin/sh
# libexample.sh: the example programs of man/libtcsparse.3 compile against
# the installed headers and the built library, and do what the page says.
# Each program's first line is its label, "/* example: NAME */", and the
# test takes it by label: tcf (read, count, store), plan (a plan on host
# arrays), gpu (a plan executed on the caller's device pointers and
# stream, checked against float64) and npz (a SciPy .npz read, written as
# binsparse).
#
# Needs: cc; the shared libtcsparse (and, for the GPU run, libtcsparse-gpu
# beside it) in $top_builddir/lib/.libs (a build tree) or $top_builddir/lib
# (a bundle); tcmul in $top_builddir/tools or $top_builddir/bin; for the gpu
# example, the CUDA runtime's header and library under $CUDA_HOME (default
# /usr/local/cuda; include/ and lib64/), else that part is skipped. The gpu
# example runs where `tcmul --list-devices` finds a GPU and must pass there;
# elsewhere it must exit 3 with the no-device message. On a GPU machine,
# from a bundle whose tools and libraries are in .gpu/bin and .gpu/lib:
#   top_srcdir=$PWD top_builddir=$PWD/.gpu sh tests/libexample.sh
. "${top_srcdir:-.}/tests/lib.sh"
command -v cc >/dev/null || skip_all "no C compiler (cc)"
lib=$top_builddir/lib/.libs
[ -e "$lib/libtcsparse.so" ] || lib=$top_builddir/lib
[ -e "$lib/libtcsparse.so" ] || [ -e "$lib/libtcsparse.so.0" ] ||
    skip_all "no shared libtcsparse in $top_builddir/lib/.libs or $top_builddir/lib"
# A bundle may hold only the versioned name that programs load: link to it.
if [ ! -e "$lib/libtcsparse.so" ]; then
    mkdir "$T/lib" && ln -s "$lib/libtcsparse.so.0" "$T/lib/libtcsparse.so"
    link=$T/lib
else
    link=$lib
fi
TCMUL=$TOOLS/tcmul
[ -x "$TCMUL" ] || TCMUL=$top_builddir/bin/tcmul

# roff to C: the .nf/.fi block after .SH EXAMPLES whose first line is
# "/* example: $1 */", with roff escapes undone. Nothing when there is none.
example() {
    sed -n '/^\.SH EXAMPLES/,/^\.SH SEE ALSO/p' "$top_srcdir/man/libtcsparse.3" |
        awk -v label="/* example: $1 */" '
            /^\.nf/ { first = 1; on = 0; next }
            /^\.fi/ { on = 0; next }
            first { first = 0; on = ($0 == label) }
            on' | sed 's/\\e/\\/g; s/\\-/-/g'
}
# cc NAME [flags...]: compiles $T/NAME.c into $T/NAME with the build's own
# CFLAGS and LDFLAGS (a sanitized library needs a sanitized program).
compile() {
    _name=$1; shift
    # shellcheck disable=SC2086 # the flags are word lists
    cc -std=c11 -Wall -Werror ${TC_CFLAGS:-} -I"$top_srcdir/lib" -I"$top_srcdir/plan" \
        "$T/$_name.c" -o "$T/$_name" -L"$link" -ltcsparse "$@" ${TC_LDFLAGS:-} 2> "$T/cc.err"
    ok $? "$_name: compiles without warnings"
    [ -s "$T/cc.err" ] && diag "$(cat "$T/cc.err")"
}

for label in tcf plan gpu npz; do
    example $label > "$T/$label.c"
    [ -s "$T/$label.c" ]; ok $? "the $label example was extracted from the man page"
done
is "$(grep -c '^/\* example: ' "$top_srcdir/man/libtcsparse.3")" 4 \
    "the page has four labelled examples, all tested here"

# --- tcf: read, count, store ---------------------------------------------------
grep -q 'tc_h5_write' "$T/tcf.c"; ok $? "tcf: it writes a .tcf.h5"
compile tcf
(cd "$T" && LD_LIBRARY_PATH=$lib ./tcf "$DATA/cora.mtx.gz" > out.txt)
ok $? "tcf: it runs"
is "$(cat "$T/out.txt")" "1586 TC blocks of 16x8" "tcf: it prints cora's 16x8 block count"
if command -v h5ls >/dev/null 2>&1; then
    h5ls "$T/out.tcf.h5" | grep -q '^matrix'; ok $? "tcf: it writes a .tcf.h5 with /matrix"
else
    skip "tcf: h5ls not installed (Debian: hdf5-tools)"
fi

# --- plan: host arrays -----------------------------------------------------------
# A plan multiplies host arrays and its C passes the float64 check (on the
# CPU, GPU or not: for cora's 13k nonzeros even 1000 products do not pay
# for the GPU's set-up).
grep -q 'tc_plan_execute_host' "$T/plan.c"; ok $? "plan: it multiplies host arrays"
compile plan
(cd "$T" && LD_LIBRARY_PATH=$lib ./plan "$DATA/cora.mtx.gz" > plan.txt 2> plan.err)
ok $? "plan: it runs"; [ -s "$T/plan.err" ] && diag "$(cat "$T/plan.err")"
case $(cat "$T/plan.txt") in
*" on "*": pass") good=0 ;;
*) good=1 ;;
esac
ok $good "plan: it prints the plan's path and pass ($(cat "$T/plan.txt"))"

# --- npz: SciPy's file in, binsparse out -----------------------------------------
# The .npz is SciPy's own (save_npz of cora); the binsparse file is read
# back by the library.
compile npz
PY=$(python_with scipy)
if [ -n "$PY" ]; then
    "$PY" -c 'import sys, gzip, scipy.io, scipy.sparse as sp
sp.save_npz(sys.argv[2], sp.csr_matrix(scipy.io.mmread(gzip.open(sys.argv[1]))))' \
        "$DATA/cora.mtx.gz" "$T/cora.npz"
    (cd "$T" && LD_LIBRARY_PATH=$lib ./npz cora.npz > npz.txt)
    ok $? "npz: it runs"
    is "$(cat "$T/npz.txt")" "2708 x 2708, 13264 nonzeros" "npz: it prints cora's shape and nonzeros"
    "$top_builddir/tests/containers" read binsparse "$T/out.bsp.h5" "$T/npz.mtx" &&
        "$TOOLS/tcconv" -q "$T/npz.mtx" -o "$T/npz.tcf.h5" &&
        "$TOOLS/tcconv" -q "$DATA/cora.mtx.gz" -o "$T/cora.tcf.h5" &&
        (for d in indptr indices data; do
            h5diff "$T/npz.tcf.h5" "$T/cora.tcf.h5" /matrix/$d /matrix/$d > /dev/null || exit 1
        done)
    ok $? "npz: its binsparse file holds cora (the arrays of /matrix agree)"
elif set_up_installs python3-scipy; then
    ok 1 "npz: a python3 with scipy (setup.sh installs python3-scipy)"
else
    for i in 1 2 3; do skip "npz: no python3 with scipy"; done
fi

# --- gpu: device pointers, the caller's stream -----------------------------------
grep -q 'tc_plan_execute(p, dB, o.n, dC, o.n, stream' "$T/gpu.c"
ok $? "gpu: it executes on device pointers and a stream"
cuda=${CUDA_HOME:-/usr/local/cuda}
cudalib=$cuda/lib64
[ -d "$cudalib" ] || cudalib=$cuda/lib
if [ ! -f "$cuda/include/cuda_runtime.h" ]; then
    for i in 1 2 3; do skip "gpu: no CUDA runtime header $cuda/include/cuda_runtime.h (set CUDA_HOME)"; done
elif ! ls "$cudalib"/libcudart.so* >/dev/null 2>&1; then
    for i in 1 2 3; do skip "gpu: no CUDA runtime library in $cudalib (set CUDA_HOME)"; done
else
    compile gpu -I"$cuda/include" -L"$cudalib" -Wl,-rpath,"$cudalib" -lcudart
    (cd "$T" && LD_LIBRARY_PATH=$lib ./gpu "$DATA/cora.mtx.gz" > gpu.txt 2> gpu.err)
    rc=$?
    if LD_LIBRARY_PATH=$lib "$TCMUL" --list-devices > /dev/null 2>&1; then
        ok $rc "gpu: it runs on the GPU"
        [ -s "$T/gpu.err" ] && diag "$(cat "$T/gpu.err")"
        # "rstile fp16 ... on NVIDIA H100 ...: 0.012 ms, cuSPARSE 0.020 ms"
        # then "relative error 1.23e-04, tolerance 1e-02: pass"
        diag "$(cat "$T/gpu.txt")"
        sed -n 2p "$T/gpu.txt" | grep -q '^relative error .*: pass$'
        ok $? "gpu: C passes the float64 check"
    else
        is $rc 3 "gpu: without a GPU it exits 3"
        grep -q '^\./gpu: .*no CUDA device' "$T/gpu.err"
        ok $? "gpu: ... saying there is no CUDA device ($(cat "$T/gpu.err"))"
    fi
fi
done_testing
