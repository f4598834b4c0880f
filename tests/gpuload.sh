#!/bin/sh
# gpuload.sh: libtcsparse loads its GPU side (libtcsparse-gpu: CUDA,
# cuSPARSE, cuBLAS) only when a call needs the GPU (plan/gpuload.c).
# tcstat, tcconv, tcreorder, tcplot and tcmul --device cpu never load it
# (the dynamic linker's own log, LD_DEBUG=files, lists every library a
# process loads), and neither the tools nor libtcsparse link CUDA (ldd).
# tcmul --device gpu loads it from beside libtcsparse, and fails with
# status 3 and a message naming the file when $TC_GPU_LIBRARY names one
# that is missing or is not the GPU library.
. "${top_srcdir:-.}/tests/lib.sh"
TCMUL=$top_builddir/tools/tcmul
A=$DATA/1138_bus.mtx.gz
# the build tree's libraries, or a GPU bundle's (../shared/tools/gpu-bundle:
# bin/, lib/, no config.h; a bundle holds the GPU library when it was
# built with CUDA)
LIBS=$top_builddir/lib/.libs
[ -d "$LIBS" ] || LIBS=$top_builddir/lib
CUDA_LIBS='(libcudart|libcusparse|libcublas|libtcsparse-gpu)'
have_cuda=0
if [ -f "$top_builddir/config.h" ]; then
    grep -q '^#define HAVE_CUDA 1' "$top_builddir/config.h" && have_cuda=1
elif [ -e "$LIBS/libtcsparse-gpu.so.0" ]; then
    have_cuda=1
fi

# real PROGRAM: the binary behind libtool's wrapper tools/PROGRAM.
real() {
    for _r in "$top_builddir/tools/.libs/$1" "$top_builddir/tools/.libs/lt-$1" \
        "$top_builddir/tools/$1"; do
        [ -f "$_r" ] && head -c 4 "$_r" | grep -q ELF && { echo "$_r"; return; }
    done
}

# loads NAME CMD...: runs CMD (through libtool's wrapper) with the dynamic
# linker's file log in $T/ld.log; fails when the log names none of
# libtcsparse's own dependencies (then it shows nothing), else prints the
# CUDA libraries it loaded.
loads() {
    LD_DEBUG=files LD_DEBUG_OUTPUT=$T/ld "$@" > /dev/null 2> "$T/ld.err"
    cat "$T"/ld.* > "$T/ld.log" 2>/dev/null
    rm -f "$T"/ld.[0-9]*
    grep -q 'file=[^ ]*libtcsparse\.so' "$T/ld.log" || { echo "no-log"; return; }
    grep -oE "file=[^ ]*$CUDA_LIBS[^ ]*" "$T/ld.log" | sort -u | tr '\n' ' '
}

for cmd in "tcstat --help" "tcstat $A" "tcconv -f all -o $T/b.tcf.h5 $A" \
    "tcreorder -m tcbsort -o $T/r.tcf.h5 $A" "tcplot -f brp -o $T/a.png $A" \
    "tcmul --device cpu --cols 32 --verify $A"; do
    # shellcheck disable=SC2086 # the words of the command
    got=$(loads "$top_builddir"/tools/$cmd)
    is "$got" "" "$(echo "$cmd" | sed "s|$T/||g; s|$A|1138_bus.mtx.gz|") loads no CUDA library"
done

for prog in tcconv tcstat tcreorder tcplot tcmul; do
    bin=$(real "$prog")
    deps=$(LD_LIBRARY_PATH=$LIBS ldd "$bin" 2>&1)
    printf '%s\n' "$deps" | grep -q 'libtcsparse\.so' &&
        ! printf '%s\n' "$deps" | grep -qE "$CUDA_LIBS"
    ok $? "ldd $prog: libtcsparse, and no CUDA library"
done
deps=$(LD_LIBRARY_PATH=$LIBS ldd "$LIBS/libtcsparse.so.0" 2>&1)
printf '%s\n' "$deps" | grep -q 'libhdf5' && ! printf '%s\n' "$deps" | grep -qE "$CUDA_LIBS"
ok $? "ldd libtcsparse.so: HDF5, and no CUDA library"

missing=$T/missing/libtcsparse-gpu.so.0
TC_GPU_LIBRARY=$missing "$TCMUL" --device gpu --cols 4 --verify "$A" > "$T/out" 2> "$T/err"
rc=$?
msg=$(cat "$T/err")
if [ $have_cuda -eq 0 ]; then
    [ $rc -eq 3 ] && [ "$msg" = "tcmul: no CUDA device: tcsparse was built without CUDA" ]
    ok $? "built without CUDA, \$TC_GPU_LIBRARY is not looked at: status 3, '$msg'"
    done_testing
    exit
fi
case $msg in
"tcmul: no CUDA device: cannot load tcsparse's GPU library: $missing: "*"(\$TC_GPU_LIBRARY)") good=0 ;;
*) good=1 ;;
esac
[ $rc -eq 3 ] && [ $good -eq 0 ] && [ ! -s "$T/out" ]
ok $? "\$TC_GPU_LIBRARY missing: status 3, '$msg'"
TC_GPU_LIBRARY=$missing "$TCMUL" --list-devices > "$T/out" 2> "$T/err"
[ $? -eq 3 ] && [ "$(cat "$T/err")" = "$msg" ]
ok $? "--list-devices: the same"

# A library that is not the GPU library (zlib, which libtcsparse links).
zlib=$(LD_LIBRARY_PATH=$LIBS ldd "$LIBS/libtcsparse.so.0" | awk '$1 ~ /^libz\.so/ { print $3 }')
TC_GPU_LIBRARY=$zlib "$TCMUL" --device gpu --cols 4 --verify "$A" > "$T/out" 2> "$T/err"
rc=$?
msg=$(cat "$T/err")
case $msg in
"tcmul: no CUDA device: tcsparse's GPU library has no tc_gpu_api_get: $zlib: "*) good=0 ;;
*) good=1 ;;
esac
[ $rc -eq 3 ] && [ $good -eq 0 ]
ok $? "\$TC_GPU_LIBRARY not the GPU library: status 3, '$msg'"

# The GPU library exports its table and nothing else of ours, so its calls
# of the kernels.h names stay inside it; it links CUDA.
exported=$(nm -D --defined-only "$LIBS/libtcsparse-gpu.so.0" | awk '$3 ~ /^tc_/ { print $3 }')
is "$exported" "tc_gpu_api_get" "libtcsparse-gpu exports tc_gpu_api_get alone"
LD_LIBRARY_PATH=$LIBS ldd "$LIBS/libtcsparse-gpu.so.0" | grep -q libcusparse
ok $? "libtcsparse-gpu links cuSPARSE"

# --device gpu loads it (the check above can see a load), from beside
# libtcsparse: here in a folder the program and both libraries were copied
# to, as to a GPU machine. Without a driver, status 3 and the driver's
# reason; with a GPU, the product. The folder comes first in the search
# path; the caller's path after it finds the other libraries where they are
# not installed (a bundle's lib/ on the GPU machine: this point failed
# there when the folder was the whole path).
mkdir "$T/bundle"
cp "$(real tcmul)" "$T/bundle/tcmul"
cp "$LIBS/libtcsparse.so.0" "$LIBS/libtcsparse-gpu.so.0" "$T/bundle/"
got=$(LD_LIBRARY_PATH=$T/bundle${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} loads "$T/bundle/tcmul" --device gpu --cols 4 --verify "$A")
case $got in
*"file=$T/bundle/libtcsparse-gpu.so.0 "*) good=0 ;;
*) good=1 ;;
esac
[ $good -eq 0 ] && ! grep -q "cannot load" "$T/ld.err"
ok $? "--device gpu loads the GPU library beside libtcsparse: $got"

done_testing
