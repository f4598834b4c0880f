#!/bin/sh
# large.sh: bench/large.sh on the CPU side: --dry-run's commands, every
# usage error (exit 2, nothing written), the refusal without a CUDA device
# (exit 1, no table), and one whole run on a small band matrix through a
# stand-in for tcmul that says it has a GPU and multiplies on the CPU, so
# that the table's rows and columns (the reordering and conversion costs,
# the traffic model's bytes, ncu's "-" without ncu) are checked here; the
# real GPU run is tests/large-gpu.sh.
. "${top_srcdir:-.}/tests/lib.sh"
BENCH=$top_srcdir/bench/large.sh
TCMUL=$TOOLS/tcmul
TCSTAT=$TOOLS/tcstat
export top_builddir
mkdir "$T/work"

# --dry-run: the commands, in order; nothing run, nothing written.
"$BENCH" --dry-run -o "$T/dry.tsv" -m band:2000:16 -n "8 16" -f "csr rstile" -r "original wjaccard" \
    -d "$T/work" > "$T/dry.out" 2> "$T/dry.err"
ok $? "--dry-run exits 0"
[ ! -e "$T/dry.tsv" ] && [ -z "$(ls "$T/work")" ]; ok $? "  writing nothing"
per_order="tcconv$(printf ' tcstat tcmul ncu tcmul ncu%.0s' 1 2)"
is "$(grep -v '^#' "$T/dry.out" | awk '{ sub(/.*\//, "", $1); printf "%s ", $1 }')" \
    "gen $per_order tcreorder $per_order " \
    "  gen; tcconv, then per n tcstat and per path tcmul and ncu; again after tcreorder"
is "$(grep -c -- 'tcstat -q -f csr,rstile --cols' "$T/dry.out")" 4 \
    "  tcstat: the traffic model of both paths at once, per order and n"
"$BENCH" --dry-run -m band:2000:16 -n 8 -f csr -r wjaccard -d "$T/work" > "$T/dry-wj.out"
is "$(grep -v '^#' "$T/dry-wj.out" | awk '{ sub(/.*\//, "", $1); printf "%s ", $1 }')" \
    "gen tcreorder tcstat tcmul ncu " "-r wjaccard: that order alone (csr: no tcconv)"
is "$(grep -c -- '--bench --verify --tsv --cols' "$T/dry.out")" 8 \
    "  8 bench runs: 2 orders x 2 n x 2 paths"
grep -q -- '-q -f rstile --no-compress .*band-2000-16.tcf.h5 -o' "$T/dry.out"; ok $? \
    "  tcconv builds the paths' formats (csr is the matrix itself)"
grep -q -- '--metrics dram__bytes_read.sum,dram__bytes_write.sum .*--variant VARIANT' "$T/dry.out"
ok $? "  ncu runs one product with the variant the bench chose"
"$BENCH" --dry-run -m band:2000:16 -n 8 -f rowsplit -r hmatch -p seg=64 -d "$T/work" > "$T/dry-p.out"
grep -q -- '-q -m hmatch --no-compress' "$T/dry-p.out" &&
    grep -q -- '-q -f rowsplit -p seg=64 --no-compress .*band-2000-16-hmatch.tcf.h5 -o' "$T/dry-p.out"
ok $? "-p seg=64 -r hmatch: tcreorder's hmatch, then tcconv builds rowsplit with the parameter"

# From a bundle: the tools and bench's programs in top_builddir's bin/.
mkdir -p "$T/bundle/bin"
for p in "$TOOLS/tcconv" "$TOOLS/tcstat" "$TOOLS/tcreorder" "$TOOLS/tcmul" \
         "$top_builddir/bench/gen" "$top_builddir/bench/measure"; do
    printf '#!/bin/sh\nexec "%s" "$@"\n' "$p" > "$T/bundle/bin/${p##*/}"
    chmod +x "$T/bundle/bin/${p##*/}"
done
top_builddir=$T/bundle "$BENCH" --dry-run -m band:2000:16 -n 8 -f csr -r original -d "$T/work" \
    > "$T/bundle.out"
is "$(grep -v '^#' "$T/bundle.out" | awk '{ printf "%s ", $1 }')" \
    "$T/bundle/bin/gen $T/bundle/bin/tcstat $T/bundle/bin/tcmul ncu " \
    "--dry-run from a bundle: its bin/ programs"

# Usage errors: exit 2, the problem named, the usage line, no table.
usage_fails() {
    _want=$1 _name=$2
    shift 2
    "$BENCH" -o "$T/bad.tsv" -d "$T/work" "$@" > "$T/bad.out" 2> "$T/bad.err"
    _rc=$?
    [ $_rc -eq 2 ] && grep -qF -- "$_want" "$T/bad.err" && grep -q '^usage: ' "$T/bad.err" &&
        [ ! -s "$T/bad.out" ] && [ ! -e "$T/bad.tsv" ]
    ok $? "$_name: exit 2 ($_rc), '$_want'"
}
usage_fails "-n: '0' is not a positive whole number" "-n 0" -n 0 --dry-run
usage_fails "-n: 'x' is not a positive whole number" "-n x" -n "32 x" --dry-run
usage_fails "-m: 'band2000' is not KIND:OPERAND[:OPERAND...]" "-m without operands" -m band2000
usage_fails "-m: unknown kind 'nope' in 'nope:3'" "-m with an unknown kind" -m nope:3
usage_fails "-f: unknown path 'nope' (known: csr " "-f with an unknown format" -f "rstile nope"
usage_fails "-r: unknown order 'nope' (known: original " "-r with an unknown order" -r nope
usage_fails "-r: no order given" "-r with no order" -r ""
usage_fails "unknown option '--bogus'" "--bogus" --bogus
usage_fails "unexpected operand 'a.mtx'" "an operand" a.mtx
usage_fails "usage: " "-x" -x

# No CUDA device: exit 1, said so, no table.
if "$TCMUL" --list-devices > /dev/null 2>&1; then
    skip "refusal without a CUDA device: this machine has one"
else
    "$BENCH" -o "$T/none.tsv" -m band:2000:16 -d "$T/work" > /dev/null 2> "$T/none.err"
    [ $? -eq 1 ] && grep -q "no CUDA device" "$T/none.err" && [ ! -e "$T/none.tsv" ] &&
        [ -z "$(ls "$T/work")" ]
    ok $? "no CUDA device: exit 1, 'no CUDA device', no table, no files"
fi

# A whole run through a stand-in tcmul: --list-devices names a device;
# products run on the CPU (CSR, whatever the format asked), so every
# column but the GPU's own figures is the script's real work. rstile's
# run is reported in fp16 (as its variant tc runs), so that its row takes
# the fp16 traffic model.
cat > "$T/tcmul" <<EOF
#!/bin/sh
case " \$* " in *" --list-devices "*) echo "0: stand-in device"; exit 0 ;; esac
prec=; case " \$* " in *" --format rstile "*) prec=fp16 ;; esac
# shellcheck disable=SC2046 # the arguments hold no spaces
set -- \$(echo "\$*" | sed 's/--device gpu/--device cpu/; s/--format [a-z]*/--format csr/; s/--variant [^ ]*//')
"$TCMUL" "\$@" > "$T/stand-in.out" || exit
awk -F '\t' -v p="\$prec" 'BEGIN { OFS = "\t" } p != "" && \$2 == "run" && \$3 == "precision" { \$4 = p } { print }' "$T/stand-in.out"
EOF
chmod +x "$T/tcmul"
TCMUL=$T/tcmul NCU=$T/no-ncu "$BENCH" -o "$T/large.tsv" -m band:2000:16 -n 8 -f "csr rstile" \
    -r "original wjaccard" -d "$T/work" > "$T/run.out" 2> "$T/run.err"
ok $? "a run on band 2000 x 16 (n = 8, csr and rstile, own order and wjaccard's)"
[ -z "$(ls "$T/work")" ]; ok $? "  its files removed"
grep -q "no-ncu not found: dram_bytes is '-' in every row" "$T/run.err"; ok $? "  no ncu: said on stderr"
for c in matrix nnz n path median_ms cusparse_ms speedup floor_fraction verify device date commit \
         command dram_bytes predicted_dram_bytes conv_s conv_peak_mb; do
    head -n 1 "$T/large.tsv" | tr '\t' '\n' | grep -qx "$c"; ok $? "  column $c"
done
# column number of header $1
col() { head -n 1 "$T/large.tsv" | tr '\t' '\n' | grep -nx "$1" | cut -d: -f1; }
field() { awk -F '\t' -v c="$(col "$1")" 'NR > 1 { print $c }' "$T/large.tsv" | tr '\n' ' '; }
# row i holds columns i - 8 .. i + 7: 36 missing at the top, 28 at the bottom
nnz=$(( 2000 * 16 - 36 - 28 ))
is "$(field matrix)" "band-2000-16 band-2000-16 band-2000-16 band-2000-16 " "  4 rows"
is "$(field order)" "original original wjaccard wjaccard " "  the own order, then wjaccard's"
is "$(field path)" "csr rstile csr rstile " "  each path"
is "$(field nnz)" "$nnz $nnz $nnz $nnz " "  the band's nonzeros"
is "$(field verify)" "pass pass pass pass " "  verified"
is "$(field dram_bytes)" "- - - - " "  no ncu: dram_bytes -"
is "$(field reorder_s | awk '{ print $1, $2, ($3 > 0), ($4 > 0) }')" "- - 1 1" \
    "  reorder_s: - in the own order, the time of tcreorder after"
awk -F '\t' -v s="$(col conv_s)" -v m="$(col conv_peak_mb)" -v f="$(col floor_fraction)" \
    'NR > 1 && !($s > 0 && $m > 0 && $f > 0) { bad = 1 } END { exit bad }' "$T/large.tsv"
ok $? "  conv_s, conv_peak_mb and floor_fraction positive"
"$top_builddir/bench/gen" -q -o "$T/band.tcf.h5" band 2000 16
"$TCSTAT" -q -f csr,rstile --cols 8 --tsv "$T/band.tcf.h5" > "$T/model.tsv"
"$TCSTAT" -q -f rstile --cols 8 --b-half --tsv "$T/band.tcf.h5" > "$T/model-half.tsv"
is "$(field predicted_dram_bytes | cut -d ' ' -f 1-2)" \
    "$(tsv_value traffic.csr dram_bytes "$T/model.tsv") $(tsv_value traffic.rstile dram_bytes "$T/model-half.tsv")" \
    "  predicted_dram_bytes: tcstat's traffic model of the path, of B in fp16 where it ran in fp16"
[ "$(tsv_value traffic.rstile dram_bytes "$T/model.tsv")" != \
  "$(tsv_value traffic.rstile dram_bytes "$T/model-half.tsv")" ]
ok $? "  ... which differs from the float32 model's"
is "$(field command | cut -d '&' -f 1)" "gen -o band-2000-16.tcf.h5 band 2000 16 " \
    "  the command starts with the matrix's generation"
awk -F '\t' -v c="$(col command)" 'NR == 5 { exit !(index($c, "tcreorder -q -m wjaccard") &&
    index($c, "tcmul --device gpu --format rstile --order given --bench --verify --tsv --cols 8")) }' \
    "$T/large.tsv"
ok $? "  ... and holds the reordering and the bench run"
# ncu's CSV: a stand-in that prints what ncu prints for one product, a
# trial launch of the kernel before it and the plan's move of B's rows:
# the bytes are the last launch of each kernel (2,000 + 700) and the fp16
# conversion (300 + 150), the move left out.
cat > "$T/ncu" <<'EOF'
#!/bin/sh
echo "==PROF== Connected to process 1 (tcmul)"
m() { printf '"%s","1","tcmul","host","%s","1","7","(128, 1, 1)","(72, 1, 1)","0","9.0","Command line profiler metrics","%s","byte","%s"\n' "$@"; }
echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
m 0 "void rs_kernel<2, 4, 1>(rs_args)" dram__bytes_read.sum "1,000"
m 0 "void rs_kernel<2, 4, 1>(rs_args)" dram__bytes_write.sum 500
m 1 "move_rows(const float *, long, const int *, float *)" dram__bytes_read.sum "9,999"
m 1 "move_rows(const float *, long, const int *, float *)" dram__bytes_write.sum 1
m 2 "to_half(const float *, __half *, long, int, long)" dram__bytes_read.sum 300
m 2 "to_half(const float *, __half *, long, int, long)" dram__bytes_write.sum 150
m 3 "void rs_kernel<2, 4, 1>(rs_args)" dram__bytes_read.sum "2,000"
m 3 "void rs_kernel<2, 4, 1>(rs_args)" dram__bytes_write.sum 700
EOF
chmod +x "$T/ncu"
TCMUL=$T/tcmul NCU=$T/ncu "$BENCH" -o "$T/ncu.tsv" -m band:2000:16 -n 8 -f csr -r original \
    -d "$T/work" 2> "$T/ncu.err"
ok $? "a run with ncu"
is "$(awk -F '\t' -v c="$(col dram_bytes)" 'NR > 1 { print $c }' "$T/ncu.tsv")" 3150 \
    "  dram_bytes: the last launch of each kernel, the plan's row moves left out"

# a second run appends, under the one header
TCMUL=$T/tcmul NCU=$T/no-ncu "$BENCH" -o "$T/large.tsv" -m band:2000:16 -n 8 -f csr -r original \
    -d "$T/work" 2> /dev/null
is "$(grep -c '^device' "$T/large.tsv") $(($(wc -l < "$T/large.tsv") - 1))" "1 5" \
    "a second run appends its row under the same header"
done_testing
