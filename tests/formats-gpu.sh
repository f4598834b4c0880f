#!/bin/sh
# formats-gpu.sh: what every kernel must do through tcmul on the GPU, run
# for each format `tcconv --list-formats` names (a new format's kernel is
# tested by being registered): with an Inf in row 0 of B, --verify passes
# and exactly the rows of C whose row of A uses column 0 are not finite
# (tuning leaves out the variants recorded as spreading it); --bench
# --verify checks the last timed run and times cuSPARSE in the same run.
# Every variant on the awkward shapes and the real matrices, and tuning's
# choice with NaN and Inf in B, are t_formats_gpu's. Skipped where there is
# no CUDA device. TCMUL and TCCONV may name the tools to run (a bundle on a
# GPU machine without the build tree).
. "${top_srcdir:-.}/tests/lib.sh"
DEVICE=gpu
. "$top_srcdir/tests/tcmul-common.sh"

for f in $("$TCCONV" --list-formats | awk '/^[^ ]/ { print $1 }'); do
    # a format registered without a kernel (TC_FORMAT_CPU) has nothing to run
    if ! "$TCMUL" --device gpu --format "$f" --cols 1 "$DATA/cora.mtx.gz" -o "$T/c.mtx" \
        2> "$T/probe.err" && grep -q "no GPU kernel for format '$f'" "$T/probe.err"; then
        diag "$f: no GPU kernel"
        continue
    fi
    # a plan that times nothing runs the kernel's first variant that
    # takes the matrix (the order the usage error lists them in); at
    # n = 64 every kernel's first takes it (hrpb's tc-wide needs n > 32)
    first=$("$TCMUL" --device gpu --format "$f" --variant none --cols 1 "$DATA/cora.mtx.gz" 2>&1 |
            sed -n "s/.*kernel's variants are \([^ ,]*\).*/\1/p")
    "$TCMUL" --device gpu --format "$f" --effort estimate --no-plan-cache --verify --tsv --cols 64 \
        "$DATA/cora.mtx.gz" -o "$T/c.mtx" > "$T/est.tsv" 2> "$T/est.err"
    is "$(tsv_value plan tune_s "$T/est.tsv") $(tsv_value run variant "$T/est.tsv")" "0 $first" \
        "$f --effort estimate: nothing tuned, its first variant ($first) runs"
    inf_row0 "$DATA/rajat01.mtx.gz" --format "$f"
    verify_passes "$f --bench --verify" "$DATA/bcsstk13.mtx.gz" --format "$f" --cols 32 \
        --bench --iters 20
    speedup=$(figure baseline speedup)
    awk -v s="$speedup" 'BEGIN { exit !(s > 0) }'
    ok $? "$f --bench: speedup over cuSPARSE ($speedup, $(figure baseline variant)) in the same run"
done

done_testing
