#!/bin/sh
# Plans on the GPU: -f auto at each effort level on two shared matrices
# (--verify passes, and auto's median is within 2% of cuSPARSE's or
# better), a B that fp16 cannot hold as it is (1e6 and 1e-7) passing
# --verify on an fp16 path, a stored plan reused, and a reordered .tcf.h5
# giving C in the original order, and a patient plan choosing among the
# format settings rowsplit lists for plans (stored, reused, and run as a
# plan file names them). Skipped without a GPU.
. "${top_srcdir:-.}/tests/lib.sh"
TCMUL=$TOOLS/tcmul
"$TCMUL" --list-devices > /dev/null 2>&1 || skip_all "no CUDA device"
SHARED=${TC_SHARED_DATA:-}
[ -n "$SHARED" ] && [ -r "$SHARED/cora.mtx.gz" ] && [ -r "$SHARED/bcsstk17.mtx.gz" ] ||
    skip_all "the shared matrices are not there (TC_SHARED_DATA)"
fig() { tsv_value "$1" "$2" "$3"; }

# Each effort level: the plan's C passes --verify; timed ones are never
# slower than cuSPARSE beyond noise (bench's median against the baseline
# timed in the same run).
for m in cora bcsstk17; do
    for e in estimate measure patient; do
        "$TCMUL" --device gpu "$SHARED/$m.mtx.gz" --cols 64 --effort $e --verify --bench \
            --no-plan-cache --tsv > "$T/$m.$e.tsv" 2> "$T/err"
        is "$(fig verify result "$T/$m.$e.tsv")" pass "$m, --effort $e: --verify passes"
        [ $e = estimate ] && continue
        auto=$(fig bench median_ms "$T/$m.$e.tsv")
        base=$(fig baseline median_ms "$T/$m.$e.tsv")
        [ -z "$base" ] && base=$auto    # the plan chose cuSPARSE itself
        awk -v a="$auto" -v b="$base" 'BEGIN { exit !(a <= 1.02 * b) }'
        ok $? "$m, --effort $e: auto's median $auto ms within 2% of cuSPARSE's $base ms"
    done
done

# fp16 and a B past its range: scaled by a power of two, C exact.
awk 'BEGIN { print "%%MatrixMarket matrix array real general"; print 1138, 4
             for (j = 0; j < 4; j++) for (i = 0; i < 1138; i++)
                 print (i % 3 == 0 ? 1e6 : (i % 3 == 1 ? 1e-7 : -2.5e5)) }' > "$T/B.mtx"
for f in bcsr rstile; do
    "$TCMUL" --device gpu "$DATA/1138_bus.mtx.gz" -B "$T/B.mtx" -f $f --verify --tsv \
        --no-plan-cache > "$T/h.tsv" 2> "$T/err"
    is "$(fig verify result "$T/h.tsv") $(fig plan precision "$T/h.tsv") $(fig plan b_scaled "$T/h.tsv")" \
        "pass fp16 yes" "-f $f with |B| up to 1e6 and down to 1e-7: fp16, B scaled, --verify passes"
done

# A stored plan is reused: no tuning the second time.
P=$T/cora.plan
"$TCMUL" --device gpu "$SHARED/cora.mtx.gz" --cols 32 --plan "$P" --verify --tsv > "$T/1.tsv"
"$TCMUL" --device gpu "$SHARED/cora.mtx.gz" --cols 32 --plan "$P" --verify --tsv > "$T/2.tsv"
is "$(fig plan reused "$T/2.tsv") $(fig plan tune_s "$T/2.tsv") $(fig verify result "$T/2.tsv")" \
    "yes 0 pass" "a stored plan is reused without tuning"

# A reordered .tcf.h5: C in the original order, as from the .mtx.gz.
A=$SHARED/cora.mtx.gz
"$TOOLS/tcreorder" -m wjaccard "$A" -o "$T/R.tcf.h5" &&
    "$TCMUL" --device gpu "$T/R.tcf.h5" --cols 16 -f rstile --no-plan-cache -o "$T/C.r.h5" &&
    "$TCMUL" --device cpu "$A" --cols 16 -o "$T/C.h5"
ok $? "tcmul on a wjaccard .tcf.h5 and on the .mtx.gz"
py=$(python_with h5py numpy)
if [ -n "$py" ]; then
    "$py" -c 'import h5py, numpy, sys
a = h5py.File(sys.argv[1])["C"][:]; b = h5py.File(sys.argv[2])["C"][:]
sys.exit(bool(numpy.linalg.norm(a - b) > 1e-2 * numpy.linalg.norm(b)))' "$T/C.r.h5" "$T/C.h5"
    ok $? "... the same C up to fp16 rounding: the original row order"
else
    skip "no python3 with h5py and numpy"
fi
"$TCMUL" --device gpu "$T/R.tcf.h5" --cols 16 --effort patient --verify --tsv --no-plan-cache \
    > "$T/rp.tsv"
is "$(fig verify result "$T/rp.tsv")" pass "a reordered .tcf.h5 planned patiently: --verify passes"

# A patient plan times a format again at the settings it lists for plans
# (rowsplit: tc_format_plan_params, eight settings, then those eight and
# the defaults again at rowcost=1) and, for rowsplit, at cuts of one and
# two waves of its kernel (segs=N), alone and with its wave settings
# (rowcost=1 and 4), stores the chosen one and reuses it.
# On the .tcf.h5 that holds rowsplit built with seg=64 too: the stored
# one serves as the defaults' candidate, the others are built.
P=$T/rs.plan
for src in "$A" "$T/rs64.tcf.h5"; do
    [ "$src" = "$A" ] || "$TOOLS/tcconv" -q -f rowsplit -p seg=64 -o "$src" "$A" || break
    rm -f "$P"
    "$TCMUL" --device gpu "$src" --cols 32 -f rowsplit --effort patient --order given \
        --plan "$P" --verify --tsv > "$T/rs1.tsv"
    is "$(fig verify result "$T/rs1.tsv")" pass "$(basename "$src"): -f rowsplit, patient: --verify passes"
    is "$(awk -F'\t' '$2 == "candidates" && $3 ~ /format_params$/ && $4 != "" {
                          c++; w += ($4 ~ /^segs=[0-9]+(,rowcost=[14])?$/) }
                      END { print c + 0, w + 0 }' "$T/rs1.tsv")" "23 6" \
        "... its seventeen plan settings and six cuts of one and two waves are candidates besides the defaults"
    chosen=$(fig plan format_params "$T/rs1.tsv")
    is "$(awk -F'\t' '$1 == "format_params" { print $2 }' "$P")" "$chosen" \
        "... the plan file holds the chosen settings ('$chosen')"
    "$TCMUL" --device gpu "$src" --cols 32 -f rowsplit --effort patient --order given \
        --plan "$P" --verify --tsv > "$T/rs2.tsv"
    is "$(fig plan reused "$T/rs2.tsv")|$(fig plan format_params "$T/rs2.tsv")|$(fig verify result "$T/rs2.tsv")" \
        "yes|$chosen|pass" "... and reused with them"
done
# Settings a plan file names are what runs (C checked), whatever was timed.
for s in seg=64,order=1 seg=200,order=0; do
    sed "s/^format_params\t.*/format_params\t$s/" "$P" > "$T/rs3.plan"
    "$TCMUL" --device gpu "$A" --cols 32 -f rowsplit --effort patient --order given \
        --plan "$T/rs3.plan" --verify --tsv > "$T/rs3.tsv"
    is "$(fig plan reused "$T/rs3.tsv")|$(fig plan format_params "$T/rs3.tsv")|$(fig verify result "$T/rs3.tsv")" \
        "yes|$s|pass" "a plan file's format_params $s: built with them, --verify passes"
done
# Where rowsplit's default cut already has 131072 segments or more (seg 128
# on 16777216 rows and a nonzero, at rowcost 2 and at 1 alike), its
# settings of smaller segments cannot pay: a patient plan lists them
# untimed, with the reason, and times the orders.
printf '%%%%MatrixMarket matrix coordinate real general\n16777216 2 1\n5 2 1.5\n' > "$T/tall.mtx"
"$TCMUL" --device gpu "$T/tall.mtx" --cols 4 -f rowsplit --effort patient --order given \
    --verify --tsv > "$T/tall.tsv"
is "$(fig verify result "$T/tall.tsv")" pass "16777216 rows, -f rowsplit, patient: --verify passes"
is "$(awk -F'\t' '$2 == "candidates" && $3 ~ /format_params$/ && $4 ~ /^seg=/ { p[$3] = 1 }
                  $2 == "candidates" && $3 ~ /note$/ && $4 ~ /cannot pay/ { n[$3] = 1 }
                  END { for (k in p) { sub(/format_params$/, "note", k); c += (k in n) }
                        print c + 0 }' "$T/tall.tsv")" 12 \
    "... its twelve settings of smaller segments (six at each rowcost) listed untimed: they cannot pay"
done_testing
