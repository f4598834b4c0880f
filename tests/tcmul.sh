#!/bin/sh
# tcmul on the CPU: --verify on the bundled and on generated matrices, B and
# C files, a reordered input, timing figures, errors; and --device gpu on a
# machine without a GPU.
. "${top_srcdir:-.}/tests/lib.sh"
DEVICE=cpu
. "$top_srcdir/tests/tcmul-common.sh"

for m in "$DATA"/*.mtx.gz; do
    name=$(basename "$m" .mtx.gz)
    verify_passes "$name: --verify at n=7" "$m" --cols 7
done
verify_passes "1138_bus: --verify at n=1" "$DATA/1138_bus.mtx.gz" --cols 1
verify_passes "cora: --verify at n=257" "$DATA/cora.mtx.gz" --cols 257 --seed 5

gen_longrow "$T/longrow.mtx"
verify_passes "a 5000-nonzero row, n=1" "$T/longrow.mtx" --cols 1
verify_passes "a 5000-nonzero row, n=33" "$T/longrow.mtx" --cols 33 --threads 3
gen_tall "$T/tall.mtx"
verify_passes "70000 rows with empty ones, n=1" "$T/tall.mtx" --cols 1
verify_passes "70000 rows with empty ones, n=7" "$T/tall.mtx" --cols 7
gen_empty "$T/empty.mtx"
verify_passes "a matrix without nonzeros" "$T/empty.mtx" --cols 4
"$TCMUL" --device cpu "$T/empty.mtx" --cols 2 -o "$T/C.empty.mtx" &&
    is "$(grep -cx 0 "$T/C.empty.mtx")" 10 "... whose C is all zeros"

# B from files: an identity A turns the random B into C exactly, which gives
# B as .h5 and as .mtx; each must give the same C as the random B itself.
A=$DATA/1138_bus.mtx.gz
awk 'BEGIN { print "%%MatrixMarket matrix coordinate real general"; print 1138, 1138, 1138
             for (i = 1; i <= 1138; i++) print i, i, 1 }' > "$T/I.mtx"
"$TCMUL" --device cpu "$T/I.mtx" --cols 5 -o "$T/B.h5:/B"; ok $? "-o FILE.h5:/DATASET"
"$TCMUL" --device cpu "$T/I.mtx" --cols 5 -o "$T/B.mtx"; ok $? "-o FILE.mtx"
is "$(h5ls "$T/B.h5/B" | tr -s ' ')" "B Dataset {1138, 5}" "the .h5 output holds a 1138 x 5 dataset"
is "$(h5dump -H -d /B "$T/B.h5" | grep -c H5T_IEEE_F32LE)" 1 "... of float32"
is "$(sed -n '1p;2p' "$T/B.mtx" | tr '\n' ' ')" "%%MatrixMarket matrix array real general 1138 5 " \
    "the .mtx output is a Matrix Market array"
"$TCMUL" --device cpu "$A" --cols 5 -o "$T/C.rand.mtx" &&
    "$TCMUL" --device cpu "$A" -B "$T/B.h5:/B" -o "$T/C.h5b.mtx" &&
    cmp -s "$T/C.rand.mtx" "$T/C.h5b.mtx"
ok $? "B from an HDF5 dataset gives the C of the random B it holds"
"$TCMUL" --device cpu "$A" -B "$T/B.h5" -o "$T/C.h5d.mtx" && cmp -s "$T/C.rand.mtx" "$T/C.h5d.mtx"
ok $? "-B FILE.h5 reads the dataset /B"
"$TCMUL" --device cpu "$A" -B "$T/B.mtx" -o "$T/C.mtxb.mtx" && cmp -s "$T/C.rand.mtx" "$T/C.mtxb.mtx"
ok $? "B from a Matrix Market array gives the same C"
"$TCMUL" --device cpu "$A" --cols 5 -o "$T/C.rand.mtx.gz" && gzip -t "$T/C.rand.mtx.gz" &&
    gzip -dc "$T/C.rand.mtx.gz" | cmp -s - "$T/C.rand.mtx"
ok $? "-o FILE.mtx.gz writes the .mtx array gzip-compressed"
"$TCMUL" --device cpu "$A" --cols 5 -o "$T/C.h5" &&
    "$TCMUL" --device cpu "$T/I.mtx" -B "$T/C.h5:/C" -o "$T/C.back.mtx" &&
    cmp -s "$T/C.rand.mtx" "$T/C.back.mtx"
ok $? "C written as .h5 (dataset /C) reads back as the same matrix"
verify_passes "--verify with B from a Matrix Market array" "$A" -B "$T/B.mtx"
"$TCMUL" --device cpu "$A" --cols 5 --threads 1 -o "$T/C.t1.mtx" &&
    "$TCMUL" --device cpu "$A" --cols 5 --threads 3 -o "$T/C.t3.mtx" &&
    cmp -s "$T/C.t1.mtx" "$T/C.t3.mtx" && cmp -s "$T/C.t1.mtx" "$T/C.rand.mtx"
ok $? "the same C with 1 and 3 threads"

# Inf in row 0 of B reaches only the rows of A that have column 0.
inf_row0 "$DATA/rajat01.mtx.gz"

# A reordered .tcf.h5: C comes out in the original row order.
if [ -x "$TOOLS/tcreorder" ]; then
    awk 'BEGIN { for (i = 0; i < 1138; i++) print (i * 7) % 1138 }' > "$T/perm.txt"
    "$TOOLS/tcreorder" --apply "$T/perm.txt" "$A" -o "$T/P.tcf.h5"
    ok $? "tcreorder --apply writes a reordered .tcf.h5"
    h5ls "$T/P.tcf.h5/permutation" | grep -q row_new_to_old
    ok $? "... which holds /permutation"
    "$TCMUL" --device cpu "$T/P.tcf.h5" --cols 5 -o "$T/C.perm.mtx" &&
        cmp -s "$T/C.perm.mtx" "$T/C.rand.mtx"
    ok $? "reordered input: C in the original row order, equal to the unreordered run"
    verify_passes "reordered input: --verify" "$T/P.tcf.h5" --cols 9
    is "$(figure input reordered)" yes "the report says the input was reordered"
    # Rows and columns permuted: B is taken in the original order too. The
    # sums run in another order, so C agrees up to float32 rounding.
    "$TOOLS/tcreorder" --apply "$T/perm.txt" --symmetric "$A" -o "$T/S.tcf.h5" &&
        "$TCMUL" --device cpu "$T/S.tcf.h5" --cols 5 -o "$T/C.sym.mtx" &&
        paste "$T/C.rand.mtx" "$T/C.sym.mtx" | awk '/^%/ || NR < 3 { next }
             { d = $1 - $2; e += d * d; r += $1 * $1 }
             END { exit !(r > 0 && sqrt(e / r) < 1e-6) }'
    ok $? "rows and columns reordered: C in the original order, equal up to rounding"
else
    skip "reordered input: tools/tcreorder is not built"
fi
"$TCCONV" "$A" -o "$T/A.tcf.h5" && "$TCMUL" --device cpu "$T/A.tcf.h5" --cols 5 -o "$T/C.tcf.mtx" &&
    cmp -s "$T/C.tcf.mtx" "$T/C.rand.mtx"
ok $? "A from .tcf.h5 gives the same C as from .mtx.gz"

# Timing figures.
"$TCMUL" --device cpu --bench --iters 5 --warmup 1 --tsv "$A" --cols 8 > "$T/v.tsv"
ok $? "--bench on the CPU"
for k in median_ms min_ms gflops floor_bytes path_bytes bandwidth_gbs floor_ms floor_fraction; do
    v=$(figure bench $k)
    awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }'; ok $? "--bench reports $k > 0 ($v)"
done
"$TCMUL" --device cpu --bench --iters 3 --bandwidth 50 --tsv "$A" --cols 8 > "$T/v.tsv"
is "$(figure bench bandwidth_gbs)" 50 "--bandwidth replaces the measured bandwidth"
is "$(figure bench floor_bytes)" $(( 1139 * 4 + 4054 * 8 + 4 * 8 * (1138 + 1138) )) \
    "floor bytes: A as the GPU's CSR (int32 rowptr and columns, float32 values) + B + C"
is "$(figure bench path_bytes)" $(( 1139 * 8 + 4054 * 12 + 4 * 8 * (1138 + 1138) )) \
    "path bytes: the CPU's own A (int64 rowptr, int32 columns, float64 values) + B + C"
awk -v f="$(figure bench floor_bytes)" -v bw="$(figure bench bandwidth_gbs)" \
    -v ms="$(figure bench floor_ms)" 'BEGIN { d = f / (bw * 1e6) - ms; exit !(d < 1e-9 && d > -1e-9) }'
ok $? "floor_ms is floor_bytes over the bandwidth"
# A pattern matrix has no values to move: its floor has no 4 bytes a nonzero for them.
gzip -dc "$A" | awk '/^%%/ { sub(/ real /, " pattern "); print; next } /^%/ { print; next }
    !size { print; size = 1; next } { print $1, $2 }' > "$T/pattern.mtx"
"$TCMUL" --device cpu --bench --iters 3 --bandwidth 50 --tsv "$T/pattern.mtx" --cols 8 > "$T/v.tsv"
is "$(figure bench floor_bytes)" $(( 1139 * 4 + 4054 * 4 + 4 * 8 * (1138 + 1138) )) \
    "floor bytes of a pattern matrix: no values"
"$TCMUL" --device cpu --bench --iters 3 --verify --json "$A" --cols 8 > "$T/v.json" &&
    python3 -c 'import json, sys; a = json.load(open(sys.argv[1])); d = a[0]["report"]; sys.exit(len(a) != 1 or a[0]["file"] != sys.argv[2] or d["verify"]["result"] != "pass" or d["bench"]["median_ms"] <= 0)' "$T/v.json" "$A"
ok $? "--json is valid JSON with the figures: an array of one {file, report}, as tcstat's"
run_fails 2 "tcmul: --tsv and --json exclude each other: give one" "--json with --tsv" -- \
    "$TCMUL" --device cpu --json --tsv "$A" --cols 8 --verify
TC_THREADS=1 "$TCMUL" --device cpu -t 3 --verify --tsv "$A" --cols 2 > "$T/v.tsv"
is "$(figure run threads)" 3 "-t 3 runs 3 threads, over \$TC_THREADS"
# -s is --size in tcplot: tcmul's seed is --seed only
run_fails 2 "tcmul: invalid option -- 's'" "-s is not --seed" -- "$TCMUL" --device cpu -s 5 "$A" --cols 2 --verify

# --device gpu without a GPU: status 3 and the reason in a user's terms (no
# driver, a driver too old, no GPU; not the CUDA runtime's "CUDA driver
# version is insufficient" where there is no driver at all). --device auto
# runs on the CPU then, and says so and why on stderr, unless -q.
if "$TCMUL" --list-devices > /dev/null 2>&1; then
    skip "a CUDA device is present (tests/tcmul-gpu.sh covers it)"
else
    "$TCMUL" --device gpu "$A" --cols 4 --verify > "$T/out" 2> "$T/err"; rc=$?
    msg=$(cat "$T/err")
    if grep -q '^#define HAVE_CUDA 1' "$top_builddir/config.h" 2>/dev/null; then
        case ${msg#tcmul: no CUDA device: } in
        "no NVIDIA GPU driver found (no GPU here, or its driver is not installed)" | \
            "the NVIDIA driver found no GPU" | \
            "the NVIDIA driver (CUDA "*") is older than the CUDA "*" runtime tcsparse was built with: update the driver")
            good=0 ;;
        *) good=1 ;;
        esac
    else
        [ "$msg" = "tcmul: no CUDA device: tcsparse was built without CUDA" ]; good=$?
    fi
    [ "$rc" -eq 3 ] && [ "$good" -eq 0 ] && [ ! -s "$T/out" ]
    ok $? "--device gpu without a GPU: status 3, '$msg'"
    "$TCMUL" --list-devices > "$T/out" 2> "$T/err"
    [ $? -eq 3 ] && [ "$(cat "$T/err")" = "$msg" ]
    ok $? "--list-devices without a GPU: status 3, the same message"
    verify_passes "--device auto falls back to the CPU" "$A" --cols 3 --device auto
    is "$(figure run device)" cpu "... and says so in the report"
    case $(cat "$T/v.err") in
    "tcmul: warning: running on the CPU: a one-off product: the CPU's estimated "*" s is below the GPU's fixed cost"*) good=0 ;;
    *) good=1 ;;
    esac
    ok $good "... and on stderr, with the reason (a one-off product: the GPU is not opened)"
    verify_passes "--device auto with --calls 1000000" "$A" --cols 3 --device auto --calls 1000000
    is "$(cat "$T/v.err")" "tcmul: warning: running on the CPU: ${msg#tcmul: }" \
        "... falls back to the CPU when the GPU is not there, with the reason"
    "$TCMUL" -q --device auto --verify "$A" --cols 3 > "$T/out" 2> "$T/err"
    is "$?:$(cat "$T/err")" "0:" "... but not with -q"
fi

# Errors: the message, the status, nothing on stdout, no output left.
C=$DATA/cora.mtx.gz
run_fails 1 "tcmul: $T/B.mtx: B has 1138 rows, but A ($C) has 2708 columns" \
    "-B with the wrong number of rows" -- "$TCMUL" --device cpu "$C" -B "$T/B.mtx" -o "$T/bad.h5"
test ! -e "$T/bad.h5"; ok $? "no output file after the refusal"
run_fails 1 "tcmul: $T/none.mtx: cannot open: No such file or directory" \
    "-B naming no file" -- "$TCMUL" --device cpu "$C" -B "$T/none.mtx" --verify
"$TCMUL" --device cpu "$A" -B "$T/B.h5:/nope" --verify > "$T/out" 2> "$T/err"
[ $? -eq 1 ] && [ ! -s "$T/out" ] && grep -q "^tcmul: $T/B.h5.*nope" "$T/err"
ok $? "-B naming a missing dataset: status 1, the file and dataset named"
run_fails 2 "tcmul: give B as either -B FILE or --cols N" "-B and --cols together" -- \
    "$TCMUL" --device cpu "$A" -B "$T/B.mtx" --cols 3 --verify
run_fails 2 "tcmul: give B as either -B FILE or --cols N" "no B" -- \
    "$TCMUL" --device cpu "$A" --verify
run_fails 2 "tcmul: nothing to do: give -o FILE, --verify or --bench" "nothing asked" -- \
    "$TCMUL" --device cpu "$A" --cols 3
run_fails 2 "tcmul: --output $T/C.txt: cannot write '.txt': it writes HDF5 (a name ending in .h5 or .hdf5, or FILE:DATASET) or Matrix Market (.mtx, .mtx.gz)" \
    "-o with an unknown kind" -- "$TCMUL" --device cpu "$A" --cols 3 -o "$T/C.txt"
run_fails 2 "tcmul: --format: unknown format 'nosuch' (give one of: $(known_formats))" "unknown --format" -- \
    "$TCMUL" --device cpu "$A" --cols 3 --verify --format nosuch
run_fails 2 "tcmul: --device: expected cpu, gpu or auto, found 'tpu'" "unknown --device" -- \
    "$TCMUL" --device tpu "$A" --cols 3 --verify
run_fails 2 "tcmul: the CPU runs the csr format only, with no variants" "--variant on the CPU" -- \
    "$TCMUL" --device cpu "$A" --cols 3 --verify --variant alg2
run_fails 2 "tcmul: --cols: 0 is out of range [1, 2147483647]" "--cols 0" -- \
    "$TCMUL" --device cpu "$A" --cols 0 --verify
cp "$T/B.mtx" "$T/B.copy.mtx"
run_fails 2 "tcmul: --output $T/B.copy.mtx would overwrite the input $T/B.copy.mtx" "-o naming B" -- \
    "$TCMUL" --device cpu "$A" -B "$T/B.copy.mtx" -o "$T/B.copy.mtx"
cmp -s "$T/B.mtx" "$T/B.copy.mtx"; ok $? "... and B is untouched"
run_fails 2 "tcmul: --output $T/B.h5 would overwrite the input $T/B.h5" "-o naming the HDF5 file of B" -- \
    "$TCMUL" --device cpu "$A" -B "$T/B.h5:/B" -o "$T/B.h5:/C"
# tcmul.1 lists each kernel's variants in the kernel's order (its usage
# error for an unknown variant names them): a new variant goes into the page.
man_variants() {    # FORMAT: the names after "For FORMAT:" in tcmul.1
    awk '/^The variants, first the one an untimed plan prefers/, /^With$/' \
        "$top_srcdir/man/tcmul.1" | sed -e 's/^\.B[IR]* //' -e 's/\\-/-/g' | tr '\n' ' ' |
        sed -n "s/.*For $1 : \([^.(]*\).*/\1/p" | tr -d ' '
}
for f in $("$TOOLS/tcconv" --list-formats | awk '/^[^ ]/ { print $1 }'); do
    msg=$("$TCMUL" --device gpu --format "$f" --variant nope --cols 4 --verify "$A" 2>&1)
    case $msg in
    *"built without CUDA"*)
        skip "tcmul.1 lists the $f kernel's variants: built without CUDA, no kernel to ask"
        continue ;;
    esac
    k=$(printf '%s\n' "$msg" | sed -n "s/^tcmul: --variant nope: the $f kernel's variants are //p" |
        tr -d ' ')
    is "$(man_variants "$f")" "${k:-(no list of variants in: $msg)}" \
        "tcmul.1 lists the $f kernel's variants, in its order"
done
# On a terminal (script(1) gives one) planning shows a bar, as reading
# does; with -q, or stderr not a terminal, none.
script -qec "'$TCMUL' --device cpu --effort patient --cols 4 --verify '$DATA/cora.mtx.gz'" \
    /dev/null > "$T/tty.out" 2>&1
ok $? "a patient plan on a terminal"
is "$(tr '\r' '\n' < "$T/tty.out" | grep -a -c '^tcmul: planning .*100.0%')" 1 \
    "... shows a planning bar that ends at 100%"
script -qec "'$TCMUL' -q --device cpu --effort patient --cols 4 --verify '$DATA/cora.mtx.gz'" \
    /dev/null > "$T/tty.out" 2>&1
is "$(tr '\r' '\n' < "$T/tty.out" | grep -a -c '^tcmul: planning')" 0 "... and none with -q"
"$TCMUL" --device cpu --effort patient --cols 4 --verify "$DATA/cora.mtx.gz" 2> "$T/err" > /dev/null
is "$(tr '\r' '\n' < "$T/err" | grep -a -c '^tcmul: planning')" 0 \
    "... nor when stderr is not a terminal"
"$TCMUL" --help | grep -q '^Usage: tcmul'; ok $? "--help"
is "$("$TCMUL" --version)" "tcmul (tcsparse) 0.1.0" "--version"

done_testing
