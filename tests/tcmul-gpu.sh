#!/bin/sh
# tcmul on the GPU: the cuSPARSE baseline (--verify on every matrix of
# $TC_SHARED_DATA, the bundled ones when it is missing, at n = 1, 7, 32, 128,
# 257, each cuSPARSE algorithm on a few, generated awkward shapes, an Inf in
# row 0 of B), then what is particular to the brp kernel (the format read
# from a .tcf.h5, an Inf in row 0 of B spread by the variants recorded as
# spreading it, the parts of --bench, split windows run after run; every
# variant on the awkward shapes and the real matrices is t_formats_gpu's).
# Skipped where there is no CUDA
# device. TCMUL and TCCONV may name the tools to run (a bundle on a GPU
# machine without the build tree).
. "${top_srcdir:-.}/tests/lib.sh"
DEVICE=gpu
. "$top_srcdir/tests/tcmul-common.sh"

diag "$(cat "$T/devices")"

data=$(gpu_test_matrices)

# Every matrix at every n; a fresh B for each check (the seed follows n);
# -f auto, the default, runs whichever path the plan chooses.
for m in "$data"/*.mtx.gz; do
    name=$(basename "$m" .mtx.gz)
    for n in 1 7 32 128 257; do
        verify_passes "$name, n=$n" "$m" --cols "$n" --seed "$n" --warmup 2 --iters 10
        diag "$name n=$n: rel_fro $(figure verify rel_fro), fastest $(figure run variant)"
    done
done

# Each cuSPARSE algorithm on its own, where it supports the layout.
for m in "$DATA/cora.mtx.gz" "$DATA/bcsstk13.mtx.gz" "$DATA/rajat01.mtx.gz"; do
    name=$(basename "$m" .mtx.gz)
    for v in default alg1 alg2 alg3; do
        for n in 7 257; do
            if "$TCMUL" --device gpu -f csr --variant "$v" --verify "$m" --cols "$n" > "$T/out" 2> "$T/err"; then
                ok 0 "$name, --variant $v, n=$n"
            elif grep -q 'not supported here' "$T/err"; then
                skip "$name, --variant $v: $(cat "$T/err")"
            else
                ok 1 "$name, --variant $v, n=$n"
                diag "$(cat "$T/err")"
            fi
        done
    done
done

gen_longrow "$T/longrow.mtx"
verify_passes "a 5000-nonzero row, n=33" "$T/longrow.mtx" --cols 33
gen_tall "$T/tall.mtx"
verify_passes "70000 rows with empty ones, n=7" "$T/tall.mtx" --cols 7
gen_empty "$T/empty.mtx"
verify_passes "a matrix without nonzeros" "$T/empty.mtx" --cols 4
inf_row0 "$DATA/rajat01.mtx.gz"
# cuSPARSE's CSR_ALG1 and CSR_ALG3 spread the Inf to other rows (recorded in
# kernels/cusparse.cu): the choice of the fastest skips them when B is not
# all finite, and they still do spread it.
"$TCMUL" --device gpu -f csr --effort measure --verify --tsv "$DATA/rajat01.mtx.gz" \
    -B "$T/Binf.mtx" > "$T/v.tsv"
is "$(figure variants alg1_ms) $(figure variants alg3_ms)" "skipped skipped" \
    "B with an Inf: the variants that spread it are skipped"
# The measured plan above is in the plan cache: a forced variant it did not
# choose must plan afresh (a stale entry once left half its path behind,
# and the product crashed).
for v in default alg2; do
    verify_passes "Inf in B row 0, --variant $v: not spread" "$DATA/rajat01.mtx.gz" \
        -B "$T/Binf.mtx" -f csr --variant $v
done
for v in alg1 alg3; do
    "$TCMUL" --device gpu -f csr --variant $v --verify --tsv "$DATA/rajat01.mtx.gz" -B "$T/Binf.mtx" \
        > "$T/v.tsv" 2> /dev/null
    [ $? -eq 1 ] && [ "$(figure verify nonfinite)" -gt 0 ]
    ok $? "Inf in B row 0, --variant $v: spread to $(figure verify nonfinite) elements, as recorded"
done

# Timed runs: C of the last timed run is checked too, over rotated operands.
verify_passes "--bench --verify" "$DATA/bcsstk13.mtx.gz" --cols 64 --bench --iters 20
is "$(figure bench launch_gaps_hidden)" yes "timed runs were queued behind the holding kernel"
sets=$(figure bench operand_sets)
awk -v s="$sets" 'BEGIN { exit !(s > 1) }'; ok $? "operands that fit in L2 are rotated ($sets sets)"

# The floor is the matrix's: every path (cuSPARSE, each format, the CPU)
# reports the same floor_bytes, A as int32 CSR with float32 values, B and C
# once; each path's own arrays are path_bytes.
want=$(( (2003 + 1) * 4 + 83883 * 8 + 4 * 32 * (2003 + 2003) ))
for f in $("$TCCONV" --list-formats | awk '/^[^ ]/ { print $1 }'); do
    "$TCMUL" --device gpu --format "$f" --bench --iters 3 --warmup 1 --bandwidth 1000 --tsv \
        "$DATA/bcsstk13.mtx.gz" --cols 32 > "$T/v.tsv"
    is "$(figure bench floor_bytes)" "$want" "$f: the common floor_bytes"
    diag "$f: path_bytes $(figure bench path_bytes)"
done
"$TCMUL" --device cpu --bench --iters 3 --warmup 1 --bandwidth 1000 --tsv \
    "$DATA/bcsstk13.mtx.gz" --cols 32 > "$T/v.tsv"
is "$(figure bench floor_bytes)" "$want" "the CPU path: the same floor_bytes"

# ---- brp (kernels/brp.cu)
# The tensor-core variants (each spreads an Inf of B, see below); "cuda" is
# the one that does not.
brp_tc="tc-item tc-item8 tc-item-long tc-item8-long"

# The format read from a .tcf.h5 (not rebuilt): same check
"$TCCONV" -q -f brp "$DATA/bcsstk13.mtx.gz" -o "$T/b13.tcf.h5"
verify_passes "brp read from a .tcf.h5, n=64" "$T/b13.tcf.h5" --format brp --cols 64

# Inf in row 0 of B ($T/Binf.mtx, made above): the tensor-core variants
# multiply the zeros of the A tiles by it (recorded in kernels/brp.cu);
# forced, they do spread it, and "cuda" does not.
verify_passes "brp, Inf in B row 0, --variant cuda: not spread" "$DATA/rajat01.mtx.gz" \
    --format brp -B "$T/Binf.mtx" --variant cuda
for v in $brp_tc; do
    "$TCMUL" --device gpu --format brp --variant $v --verify --tsv "$DATA/rajat01.mtx.gz" \
        -B "$T/Binf.mtx" > "$T/v.tsv" 2> /dev/null
    [ $? -eq 1 ] && [ "$(figure verify nonfinite)" -gt 0 ]
    ok $? "brp, Inf in B row 0, --variant $v: spread to $(figure verify nonfinite) elements, as recorded"
done

# Timed runs: the parts are timed on their own.
verify_passes "brp --bench --verify" "$DATA/bcsstk13.mtx.gz" --format brp --cols 32 --bench \
    --iters 20
share=$(figure parts tc_block_nnz_share)
awk -v s="$share" -v t="$(figure parts tc_block_time_share)" \
    'BEGIN { exit !(s > 0 && s <= 1 && t > 0 && t <= 1) }'
ok $? "brp --bench: TC Block part shares of nonzeros ($share) and of time"

# tc-item's split windows leave their workspace zero for the next run: the
# last of 20 timed runs (a window of 5000 nonzeros cut into items) is right.
for v in tc-item tc-item8 tc-item-long tc-item8-long; do
    verify_passes "brp --variant $v --bench --verify: split windows, run after run" \
        "$T/longrow.mtx" --format brp --variant $v --cols 64 --bench --iters 20
done

done_testing
