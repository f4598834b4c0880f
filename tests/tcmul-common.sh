# tcmul-common.sh: what tests/tcmul.sh (CPU) and the GPU tests of tcmul
# (tests/*-gpu.sh) share. Source it after tests/lib.sh with DEVICE set to
# cpu or gpu; with gpu, the test ends there, skipped, without a CUDA
# device. TCMUL, TCCONV and TCREORDER may name the tools to run (a bundle
# on a GPU machine without the build tree).
TCMUL=${TCMUL:-$TOOLS/tcmul}
TCCONV=${TCCONV:-$TOOLS/tcconv}
TCREORDER=${TCREORDER:-$TOOLS/tcreorder}
if [ "$DEVICE" = gpu ]; then
    "$TCMUL" --list-devices > "$T/devices" 2>&1 || skip_all "no CUDA device"
fi

# verify_passes NAME ARGS...: tcmul --device $DEVICE --verify ARGS says
# "pass"; its report stays in $T/v.tsv.
verify_passes() {
    _vname=$1; shift
    "$TCMUL" --device "$DEVICE" --verify --tsv "$@" > "$T/v.tsv" 2> "$T/v.err" &&
        [ "$(figure verify result)" = pass ]
    _vrc=$?
    ok $_vrc "$_vname"
    if [ $_vrc -ne 0 ]; then
        diag "$(cat "$T/v.err")"
        diag "$(awk -F'\t' '$2 == "verify"' "$T/v.tsv" | tr '\t' ' ')"
    fi
    return 0
}

# figure SECTION KEY: a value of the report in $T/v.tsv.
figure() { tsv_value "$1" "$2" "$T/v.tsv"; }

# gen_longrow FILE: 9 x 6000, row 4 with 5000 nonzeros among short rows,
# values of both signs.
gen_longrow() {
    awk 'BEGIN {
        print "%%MatrixMarket matrix coordinate real general"
        print 9, 6000, 8 * 3 + 5000
        for (i = 1; i <= 9; i++)
            for (j = 1; j <= (i == 4 ? 5000 : 3); j++)
                printf "%d %d %.6f\n", i, (i == 4 ? j : (i * 1999 + j * 131) % 6000 + 1),
                       ((i * 7919 + j * 104729) % 2001 - 1000) / 1000.0
    }' > "$1"
}

# gen_tall FILE: 70000 x 100 pattern (more than 65535 rows), every tenth
# row empty except rows 10..70, the last row empty.
gen_tall() {
    awk 'BEGIN {
        print "%%MatrixMarket matrix coordinate pattern general"
        print 70000, 100, 63000 * 2 + 7
        for (i = 1; i < 70000; i++) {
            if (i % 10 == 0) continue
            j = (i * 37) % 100 + 1
            print i, j; print i, (j + i % 50) % 100 + 1
        }
        for (i = 1; i <= 7; i++) print 10 * i, i
    }' > "$1"
}

# gen_band FILE: 20000 x 20000 real, 12 nonzeros per row in a band (row i:
# columns i + 7 k, k = 0..11, wrapped), values of both signs: about 15,000
# TC blocks of 16 x 8 with many nonzeros each, enough for the kernels'
# large-matrix paths (rstile's 64 columns per warp).
gen_band() {
    awk 'BEGIN {
        print "%%MatrixMarket matrix coordinate real general"
        print 20000, 20000, 20000 * 12
        for (i = 0; i < 20000; i++)
            for (k = 0; k < 12; k++)
                printf "%d %d %.4f\n", i + 1, (i + 7 * k) % 20000 + 1,
                       ((i * 7919 + k * 104729) % 2001 - 1000) / 1000.0
    }' > "$1"
}

# gen_empty FILE: a 5 x 3 matrix without nonzeros (C must still be written).
gen_empty() {
    printf '%%%%MatrixMarket matrix coordinate real general\n5 3 0\n' > "$1"
}

# inf_row0 MATRIX [TCMUL-ARGS...] (general, .mtx.gz): B with Inf in its row
# 0; --verify passes (the infinities match the reference) and exactly the C
# rows whose A row has column 0 are not finite. TCMUL-ARGS (--format ...) go
# to both runs. INF_INPUT, when set, is the file tcmul reads (MATRIX
# converted with tcconv's format parameters); MATRIX still says which rows
# use column 0. INF_COLS, when set, is B's columns (default 3).
inf_row0() {
    _m=$1; shift
    _in=${INF_INPUT:-$_m}
    _rows=$(gzip -dc "$_m" | awk '!/^%/ { print $2; exit }')
    awk -v r="$_rows" -v c="${INF_COLS:-3}" 'BEGIN {
        print "%%MatrixMarket matrix array real general"; print r, c
        for (j = 0; j < c; j++) for (i = 0; i < r; i++) print (i == 0 ? "inf" : (i % 7) / 7 - 0.5) }' \
        > "$T/Binf.mtx"
    verify_passes "Inf in B row 0${*:+ ($*)}: --verify passes" "$_in" -B "$T/Binf.mtx" "$@"
    "$TCMUL" --device "$DEVICE" "$_in" -B "$T/Binf.mtx" -o "$T/Cinf.mtx" "$@"
    gzip -dc "$_m" | awk '!/^%/ && ++n > 1 && $2 == 1 { print $1 - 1 }' | sort -n -u > "$T/users.txt"
    _crows=$(gzip -dc "$_m" | awk '!/^%/ { print $1; exit }')
    awk -v r="$_crows" '!/^%/ && ++n > 1 { k = n - 2; if ($1 ~ /inf|nan/) print k % r }' \
        "$T/Cinf.mtx" | sort -n -u > "$T/nonfinite.txt"
    [ -s "$T/users.txt" ] && cmp -s "$T/users.txt" "$T/nonfinite.txt"
    ok $? "Inf in B row 0${*:+ ($*)}: exactly the $(wc -l < "$T/users.txt") rows using column 0 are not finite"
}

# verify_reordered FORMAT METHOD N...: every matrix of gpu_test_matrices
# reordered by tcreorder -m METHOD (the .tcf.h5 holds /permutation: tcmul
# takes B and gives C in the original order, and --verify checks that C
# against A as the user numbers it), multiplied with FORMAT at each N.
verify_reordered() {
    _fmt=$1 _method=$2; shift 2
    for _m in "$(gpu_test_matrices)"/*.mtx.gz; do
        _name=$(basename "$_m" .mtx.gz)
        "$TCREORDER" -q -m "$_method" -o "$T/$_name.re.tcf.h5" "$_m"
        ok $? "$_name: reordered by $_method"
        for _n in "$@"; do
            verify_passes "$_fmt: $_name reordered by $_method, n=$_n" "$T/$_name.re.tcf.h5" \
                --format "$_fmt" --cols "$_n" --seed "$_n" --warmup 2 --iters 10
        done
        rm -f "$T/$_name.re.tcf.h5"
    done
}

# gpu_test_matrices: the folder whose .mtx.gz the GPU tests run on:
# $TC_SHARED_DATA when it holds some, else the bundled $DATA (said in a
# diagnostic).
gpu_test_matrices() {
    _d=${TC_SHARED_DATA:-}
    if [ -z "$_d" ] || ! ls "$_d"/*.mtx.gz > /dev/null 2>&1; then
        diag "no matrices in TC_SHARED_DATA='$_d': using $DATA" >&2
        _d=$DATA
    fi
    echo "$_d"
}
