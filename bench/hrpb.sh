#!/bin/sh
# hrpb.sh: the hrpb kernel (kernels/hrpb.cu, cuTeSpMM) against cuSPARSE on
# the real matrices, beside each matrix's TCU-Synergy (seed 002, Sections 4
# and 6.4), so that the table shows whether alpha and the synergy class
# predict the speedup (the paper's Figs. 7 and 9).
#
#   bench/hrpb.sh [-o OUT.tsv] [-n "32 128 512"] [MATRIX.mtx.gz...]
#
# For every matrix (default: every .mtx.gz of $TC_SHARED_DATA, else
# ../shared/data beside the source tree) and every n of -n (default the
# paper's widths, 32, 128 and 512),
#   tcmul --device gpu --no-plan-cache --format hrpb --bench --verify --tsv --cols N --seed N A
# (hrpb built with TM = TK = 16; the fastest variant timed with CUDA events
# after warm-up over rotated operands; cuSPARSE's fastest CSR algorithm on
# the same operands, in the same run), and once per matrix
#   tcstat --tsv A
# for its synergy figures. One TSV row per run: device, date, commit,
# matrix, alpha, oi and class (tcstat's section synergy), shape and
# nonzeros, n, the hrpb median and GFLOP/s, cuSPARSE's median, algorithm
# and the speedup over it, the fraction of the memory-traffic floor, the
# variant chosen and each variant's median, the verification figure, and
# the exact tcmul command. TCMUL and TCSTAT name the programs to run
# (default: the build tree's); COMMIT overrides the commit.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
out=$here/bench/results/hrpb.tsv
bench_options "$out" "32 128 512" "$@"
shift "$bench_shift"
out=$bench_out ns=$bench_ns
[ $# -gt 0 ] || set -- "${TC_SHARED_DATA:-$here/../shared/data}"/*.mtx.gz
tcstat=$(bench_tool TCSTAT tcstat)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

columns="$BENCH_SPMM_COLUMNS
    floor_fraction=bench.floor_fraction
    variant=run.variant
    tc_ms=variants.tc_ms
    tc_sync_ms=variants.tc-sync_ms
    tc_team_ms=variants.tc-team_ms
    tc_team_sync_ms=variants.tc-team-sync_ms
    tc_wide_ms=variants.tc-wide_ms
    tc_wide_sync_ms=variants.tc-wide-sync_ms
    cuda_ms=variants.cuda_ms
    $BENCH_CHECK_COLUMNS"
status=0
(bench_tcmul_sweep hrpb "$tmp/runs.tsv" "$ns" "--format hrpb" "$columns" -o "$tmp/runs.tsv" \
    "$@") || status=1

# matrix -> alpha, oi, class
for m in "$@"; do
    name=$(basename "$m")
    name=${name%.gz}
    name=${name%.mtx}
    "$tcstat" --tsv "$m" > "$tmp/stat.tsv" || { echo "hrpb: $name: tcstat failed" >&2; status=1; }
    awk -F '\t' -v OFS='\t' -v name="$name" '
        $2 == "synergy" { v[$3] = $4 }
        END { print name, v["alpha"], v["oi"], v["class"] }' "$tmp/stat.tsv" >> "$tmp/synergy.tsv"
done

awk -F '\t' -v OFS='\t' '
    FNR == NR { s[$1] = $2 OFS $3 OFS $4; next }
    FNR == 1 { $4 = $4 OFS "alpha" OFS "oi" OFS "class"; print; next }
    { $4 = $4 OFS ($4 in s ? s[$4] : "" OFS "" OFS ""); print }' \
    "$tmp/synergy.tsv" "$tmp/runs.tsv" > "$tmp/all.tsv"
mkdir -p "$(dirname "$out")"
cp "$tmp/all.tsv" "$out"
echo "hrpb: $(($(wc -l < "$out") - 1)) rows in $out" >&2
exit $status
