#!/usr/bin/env bash
# demo.sh: from a fresh Debian machine to the main job on the bundled
# example. Installs missing build dependencies (as root), bootstraps,
# configures and builds, then converts tests/data/bcsstk13.mtx.gz, prints
# its statistics, writes a reordered copy, draws it and multiplies it with a
# check against the float64 reference: on the GPU when there is one, else on
# the CPU. Everything it writes goes to demo-out/.
set -u
cd "$(dirname "$0")"
. ./setup.sh
setup_build

bin=_build/tools
in=tests/data/bcsstk13.mtx.gz
out=demo-out
mkdir -p "$out"
step() { printf '\n$ %s\n' "$*"; "$@" || { echo "demo: step failed: $*" >&2; exit 1; }; }

step $bin/tcconv "$in" -o $out/bcsstk13.tcf.h5
step $bin/tcstat $out/bcsstk13.tcf.h5
step $bin/tcreorder --method rcm --symmetric $out/bcsstk13.tcf.h5 -o $out/bcsstk13.rcm.tcf.h5 \
    --perm-out $out/bcsstk13.rcm.perm
step $bin/tcplot $out/bcsstk13.tcf.h5 -o $out/bcsstk13.png --blocks $out/bcsstk13.blocks.png
step $bin/tcplot $out/bcsstk13.rcm.tcf.h5 -o $out/bcsstk13.rcm.png --blocks $out/bcsstk13.rcm.blocks.png

if $bin/tcmul --device gpu --list-devices >/dev/null 2>&1; then
    device=gpu
    echo; echo "demo: a CUDA device is present: multiplying on the GPU (cuSPARSE)"
else
    device=cpu
    echo; echo "demo: no CUDA device here: multiplying on the CPU"
fi
step $bin/tcmul --device $device --verify --cols 32 --seed 1 \
    $out/bcsstk13.rcm.tcf.h5 -o $out/C.h5
step $bin/tcmul --device $device --bench --cols 32 $out/bcsstk13.tcf.h5

printf '\ndemo: wrote these files:\n'
ls -l "$out"
