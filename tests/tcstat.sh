#!/bin/sh
# tcstat: figures of a hand-checked matrix in text, TSV and JSON; several
# inputs; formats; block shapes; the Fused3S tables on real graphs; errors.
. "${top_srcdir:-.}/tests/lib.sh"
TCSTAT=$TOOLS/tcstat
TCCONV=$TOOLS/tcconv


# The 3x3 of t_stats:  [1 2 .; . . 3; 4 . 5]
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 1\n1 2 2\n2 3 3\n3 1 4\n3 3 5\n' > "$T/a.mtx"
"$TCSTAT" --tsv "$T/a.mtx" > "$T/a.tsv"; ok $? "--tsv runs"
# One shape whatever the number of inputs: the file named on every line.
is "$(head -n 1 "$T/a.tsv")" "$(printf 'file\tsection\tkey\tvalue')" "TSV header, one input too"
is "$(awk -F'\t' -v f="$T/a.mtx" 'NF != 4 || (NR > 1 && $1 != f)' "$T/a.tsv" | wc -l)" "0" \
    "TSV: four fields on every line, the file first"
is "$(tsv_value matrix nnz "$T/a.tsv") $(tsv_value matrix density "$T/a.tsv")" "5 0.5555555556" "nnz and density"
is "$(tsv_value matrix bandwidth "$T/a.tsv") $(tsv_value matrix lower_bandwidth "$T/a.tsv") $(tsv_value matrix upper_bandwidth "$T/a.tsv")" \
    "2 2 1" "bandwidths"
is "$(tsv_value matrix pattern_symmetric "$T/a.tsv")" "no" "pattern symmetry checked"
is "$(tsv_value rows nnz_mean "$T/a.tsv") $(tsv_value rows nnz_p30 "$T/a.tsv") $(tsv_value rows nnz_p40 "$T/a.tsv")" \
    "1.666666667 1 2" "row lengths: mean and nearest-rank deciles"
is "$(tsv_value tc16x8 blocks "$T/a.tsv") $(tsv_value tc16x8 fill "$T/a.tsv")" "1 0.0390625" "16x8 tiling: 1 block, fill 5/128"
is "$(cut -f 2 "$T/a.tsv" | uniq | tr '\n' ' ')" "section matrix rows columns tc16x8 synergy " "sections in order"

"$TCSTAT" "$T/a.mtx" > "$T/a.txt"; ok $? "text output runs"
is "$(grep -c '^[a-z]' "$T/a.txt")" "5" "text: five section headings"
grep -q '^  nnz_per_tcb_mean  *5  nonzeros per TC block: mean$' "$T/a.txt"
ok $? "text: aligned key, value and help"

"$TCSTAT" --json "$T/a.mtx" > "$T/a.json" && python3 -m json.tool "$T/a.json" > /dev/null
ok $? "--json is valid JSON"
is "$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); d=a[0]["report"]; print(len(a), a[0]["file"] == sys.argv[2], d["tc16x8"]["blocks"], d["matrix"]["symmetry"], d["rows"]["nnz_p100"])' "$T/a.json" "$T/a.mtx")" \
    "1 True 1 general 2" "JSON: an array of one {file, report}, one input too; sections hold the figures"

"$TCSTAT" --block 2x2 --tsv "$T/a.mtx" > "$T/b.tsv"
is "$(tsv_value tc2x2 blocks "$T/b.tsv") $(tsv_value tc2x2 fill "$T/b.tsv")" "3 0.4166666667" "--block 2x2: 3 blocks, fill 5/12"

# Several inputs; .mtx.gz and .tcf.h5 give the same figures as .mtx (all
# but the file column).
gzip -c "$T/a.mtx" > "$T/a.mtx.gz"
"$TCCONV" "$T/a.mtx" -o "$T/a.tcf.h5"
cut -f 2- "$T/a.tsv" > "$T/a-figures.tsv"
"$TCSTAT" --tsv "$T/a.mtx.gz" | cut -f 2- | cmp -s - "$T/a-figures.tsv"; ok $? ".mtx.gz: same figures"
"$TCSTAT" --tsv "$T/a.tcf.h5" | cut -f 2- | cmp -s - "$T/a-figures.tsv"; ok $? ".tcf.h5: same figures"
"$TCSTAT" --tsv < "$T/a.mtx" - > "$T/stdin.tsv" && cut -f 2- "$T/stdin.tsv" | cmp -s - "$T/a-figures.tsv" &&
    [ "$(cut -f 1 "$T/stdin.tsv" | sort -u | tr '\n' ' ')" = "- file " ]
ok $? "- reads standard input, named - in the file column"
"$TCSTAT" --tsv "$T/a.mtx" "$T/a.tcf.h5" > "$T/many.tsv"
is "$(head -n 1 "$T/many.tsv")" "$(printf 'file\tsection\tkey\tvalue')" "several inputs: TSV gains a file column"
is "$(awk -F'\t' 'NF != 4' "$T/many.tsv" | wc -l)" "0" "several inputs: four fields on every line"
is "$(grep -c "^$T/a.tcf.h5	" "$T/many.tsv")" "$(($(wc -l < "$T/a.tsv") - 1))" "several inputs: every figure of each file"
"$TCSTAT" --json "$T/a.mtx" "$T/a.tcf.h5" > "$T/many.json" && python3 -m json.tool "$T/many.json" > /dev/null
ok $? "several inputs: valid JSON"
is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d), d[1]["file"].endswith("a.tcf.h5"), d[1]["report"]["matrix"]["nnz"])' "$T/many.json")" \
    "2 True 5" "several inputs: a JSON array of {file, report}"
"$TCSTAT" "$T/a.mtx" "$T/a.mtx.gz" > "$T/many.txt"
is "$(grep -c '^==> ' "$T/many.txt")" "2" "several inputs: text under ==> FILE <== headings"
"$TCSTAT" -o "$T/out.tsv" --tsv "$T/a.mtx" && cmp -s "$T/out.tsv" "$T/a.tsv"; ok $? "-o writes the report to a file"

"$TCSTAT" -f csr --tsv "$T/a.mtx" > "$T/f.tsv"
is "$(tsv_value format.csr bytes "$T/f.tsv")" "56" "-f csr adds the format's figures (16 + 5 * 8 bytes)"
"$TCSTAT" -f all --json "$T/a.tcf.h5" | python3 -m json.tool > /dev/null; ok $? "-f all on a .tcf.h5"

# Determinism, with a matrix big enough for the tiling to use threads.
awk 'BEGIN { srand(7); n = 70001; print "%%MatrixMarket matrix coordinate pattern general";
             print n, 3001, 300000;
             for (k = 0; k < 300000; k++) print 1 + int(rand() * n), 1 + int(rand() * 3001) }' > "$T/big.mtx"
TC_THREADS=1 "$TCSTAT" --tsv "$T/big.mtx" > "$T/big1.tsv" &&
    TC_THREADS=3 "$TCSTAT" --tsv "$T/big.mtx" > "$T/big3.tsv" && cmp -s "$T/big1.tsv" "$T/big3.tsv"
ok $? "70001 x 3001, 300000 entries: byte-identical with 1 and 3 threads"
"$TCSTAT" --tsv "$T/big.mtx" | cmp -s - "$T/big1.tsv"; ok $? "  ... and run to run"
"$TCSTAT" -t 1 --tsv "$T/big.mtx" | cmp -s - "$T/big1.tsv" &&
    TC_THREADS=1 "$TCSTAT" --threads 3 --tsv "$T/big.mtx" | cmp -s - "$T/big1.tsv"
ok $? "  ... and with -t 1 and --threads 3 (over \$TC_THREADS)"
run_fails 2 "tcstat: --threads: 0 is out of range [1, 4096]" "--threads 0" -- \
    "$TCSTAT" -t 0 "$T/a.mtx"

# The traffic model of each -f format (section traffic.FORMAT). a.mtx at
# n = 8: B (3 x 8 float32, 96 bytes) fits L2 and comes from DRAM once, C
# (96 bytes) is written once, A is CSR's 56 bytes: the common floor exactly.
"$TCSTAT" -f csr --cols 8 --tsv "$T/a.mtx" > "$T/f.tsv"
is "$(for k in n window_rows a_bytes b_bytes c_bytes dram_bytes vs_floor; do
        printf '%s=%s ' $k "$(tsv_value traffic.csr $k "$T/f.tsv")"; done)" \
    "n=8 window_rows=1 a_bytes=56 b_bytes=96 c_bytes=96 dram_bytes=248 vs_floor=1 " \
    "-f csr --cols 8: B and C once, A as CSR: the floor"
"$TCSTAT" -f rstile,bcsr --tsv "$T/a.mtx" > "$T/f.tsv"
is "$(tsv_value traffic.rstile window_rows "$T/f.tsv") $(tsv_value traffic.bcsr col_unit "$T/f.tsv") $(tsv_value traffic.rstile n "$T/f.tsv")" \
    "16 16 32" "each format's windows (rstile 16 rows, bcsr 16-column blocks); n = 32 by default"
is "$(tsv_value traffic.rstile a_bytes "$T/f.tsv")" "$(tsv_value format.rstile bytes "$T/f.tsv")" \
    "A's bytes are the format's"
"$TCSTAT" -f all --tsv "$T/a.mtx" > "$T/f.tsv"
is "$(awk -F'\t' '$2 ~ /^traffic\./ && ($3 == "window_rows" || $3 == "col_unit") { printf "%s=%s ", substr($2, 9) "." $3, $4 }' "$T/f.tsv")" \
    "csr.window_rows=1 csr.col_unit=1 brp.window_rows=16 brp.col_unit=1 rstile.window_rows=16 rstile.col_unit=1 hrpb.window_rows=16 hrpb.col_unit=1 bsb.window_rows=16 bsb.col_unit=1 bcsr.window_rows=16 bcsr.col_unit=16 rowsplit.window_rows=1 rowsplit.col_unit=1 " \
    "-f all: each format's windows at its defaults (brp h, hrpb TM, bcsr h x w; rowsplit row by row)"
"$TCCONV" -q -f bcsr -p w=8 "$T/a.mtx" -o "$T/w8.tcf.h5" &&
    "$TCCONV" -q -f hrpb -p TM=32 "$T/a.mtx" -o "$T/tm32.tcf.h5" &&
    "$TCSTAT" -f bcsr --tsv "$T/w8.tcf.h5" > "$T/f.tsv" &&
    "$TCSTAT" -f hrpb --tsv "$T/tm32.tcf.h5" > "$T/g.tsv"
is "$(tsv_value traffic.bcsr col_unit "$T/f.tsv") $(tsv_value traffic.hrpb window_rows "$T/g.tsv")" \
    "8 32" "stored bcsr 16x8 gathers 8 rows of B a block, hrpb TM=32 windows of 32 rows"
# big.mtx at n = 128: B is 3001 x 512 bytes, 1.5 MB. In 50 MB of L2 it is
# read once; in 1 MiB, one window at a time, random columns miss often.
"$TCSTAT" -f csr --cols 128 --tsv "$T/big.mtx" > "$T/f.tsv"
is "$(tsv_value traffic.csr b_bytes "$T/f.tsv")" $((3001 * 128 * 4)) "big.mtx, B fits L2: read once"
"$TCSTAT" -f csr --cols 128 --l2 1 --inflight 1 --tsv "$T/big.mtx" > "$T/f.tsv"
is "$(tsv_value traffic.csr l2_bytes "$T/f.tsv") $(tsv_value traffic.csr inflight_rows "$T/f.tsv")" \
    "1048576 1" "--l2 1 --inflight 1 are the model's"
awk -v b="$(tsv_value traffic.csr b_bytes "$T/f.tsv")" -v h="$(tsv_value traffic.csr b_hit_rate "$T/f.tsv")" \
    'BEGIN { exit !(b > 2 * 3001 * 512 && h > 0.5 && h < 0.8) }'
ok $? "  B 1.5x L2: read more than twice, 0.5-0.8 of the gathers hit"
run_fails 2 "tcstat: --l2: only with --format" "--l2 without -f" -- "$TCSTAT" --l2 10 "$T/a.mtx"
run_fails 2 "tcstat: --inflight: only with --format" "--inflight without -f" -- \
    "$TCSTAT" --inflight 10 "$T/a.mtx"
run_fails 2 "tcstat: --l2: 0 is out of range [1, 1048576]" "--l2 0" -- "$TCSTAT" -f csr --l2 0 "$T/a.mtx"

# Fused3S (seed 003), Table 6: TCB/RW mean and CV, nnz/TCB mean and CV, as
# printed there (one or two decimals): ours within 0.05 of the means and 0.01
# of the CVs.
table6() {   # table6 TSV NAME MEAN CV NNZMEAN NNZCV
    awk -F'\t' -v want="$3 $4 $5 $6" '
        $2 == "tc16x8" && $3 == "tcb_per_window_mean" { g[1] = $4 }
        $2 == "tc16x8" && $3 == "tcb_per_window_cv" { g[2] = $4 }
        $2 == "tc16x8" && $3 == "nnz_per_tcb_mean" { g[3] = $4 }
        $2 == "tc16x8" && $3 == "nnz_per_tcb_cv" { g[4] = $4 }
        END { split(want, w, " "); bad = 0
              for (i = 1; i <= 4; i++) { d = g[i] - w[i]; if (d < 0) d = -d
                                         if (d > (i % 2 ? 0.05 : 0.01)) bad = 1 }
              if (bad) printf "# got %s %s %s %s\n", g[1], g[2], g[3], g[4]
              exit bad }' "$1"
    ok $? "$2: Table 6 of 003 ($3 $4 $5 $6)"
}
deciles() { for p in 0 10 20 30 40 50 60 70 80 90 100; do printf '%s ' "$(tsv_value tc16x8 tcb_per_window_p$p "$1")"; done; }
"$TCSTAT" --tsv "$DATA/citeseer.mtx.gz" > "$T/cs.tsv"
table6 "$T/cs.tsv" citeseer 5.8 0.31 7.7 0.24
# Table 7 and more of Table 6 on the shared matrices when they are there.
if [ -r "$TC_SHARED_DATA/pubmed.mtx.gz" ] && [ -r "$TC_SHARED_DATA/musae_github.mtx.gz" ]; then
    "$TCSTAT" --tsv "$TC_SHARED_DATA/pubmed.mtx.gz" > "$T/pm.tsv"
    table6 "$T/pm.tsv" pubmed 9.3 0.45 7.7 0.18
    is "$(deciles "$T/pm.tsv")" "1 5 6 7 8 9 10 11 12 14 43 " "pubmed: decile bounds of Table 7 of 003"
    "$TCSTAT" --tsv "$TC_SHARED_DATA/musae_github.mtx.gz" > "$T/gh.tsv"
    table6 "$T/gh.tsv" musae_github 29.4 1.34 8.3 0.15
    is "$(deciles "$T/gh.tsv")" "2 13 16 18 20 23 25 29 34 46 1191 " "musae_github: decile bounds of Table 7 of 003"
    TC_THREADS=1 "$TCSTAT" --tsv "$TC_SHARED_DATA/musae_github.mtx.gz" | cmp -s - "$T/gh.tsv"
    ok $? "musae_github (578006 nonzeros): the same with one thread"
else
    for i in 1 2 3 4 5; do skip "no pubmed/musae_github in \$TC_SHARED_DATA ($TC_SHARED_DATA)"; done
fi

"$TCSTAT" --help | grep -q '^Usage: tcstat'; ok $? "--help"
is "$("$TCSTAT" --version)" "tcstat (tcsparse) 0.1.0" "--version"

# Errors: message, exit status, clean stdout, no output file.
run_fails 1 "tcstat: $T/none.mtx: cannot open: No such file or directory" "missing input" -- \
    "$TCSTAT" "$T/none.mtx"
run_fails 1 "tcstat: $T/none.mtx: cannot open: No such file or directory" \
    "a missing second input: nothing printed for the first" -- "$TCSTAT" "$T/a.mtx" "$T/none.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1\n' > "$T/bad.mtx"
"$TCSTAT" -o "$T/never.txt" "$T/bad.mtx" 2> /dev/null
ok $(( $? != 1 )) "a malformed input exits 1"
test ! -e "$T/never.txt"; ok $? "  ... and leaves no -o file"
"$TCSTAT" --bogus "$T/a.mtx" > "$T/.out" 2> "$T/.err"
ok $(( $? != 2 )) "an unknown option exits 2"
grep -q "unrecognized option '--bogus'" "$T/.err" && [ ! -s "$T/.out" ] &&
    [ "$(tail -n 1 "$T/.err")" = "Try 'tcstat --help' for more information." ]
ok $? "  ... naming it, with a pointer to --help, nothing on stdout"
run_fails 2 "tcstat: --block: expected HxW (e.g. 16x8), found '16'" "--block without x" -- \
    "$TCSTAT" --block 16 "$T/a.mtx"
run_fails 2 "tcstat: --block: 512 is out of range [1, 256]" "--block too tall" -- \
    "$TCSTAT" --block 512x8 "$T/a.mtx"
known=$("$TCCONV" --list-formats | awk '/^[a-z]/ { printf "%s, ", $1 }')
run_fails 2 "tcstat: --format: unknown format 'nope' (known: ${known}all)" "unknown format" -- \
    "$TCSTAT" -f nope "$T/a.mtx"
run_fails 2 "tcstat: --tsv and --json exclude each other: give one" "--tsv with --json" -- \
    "$TCSTAT" --tsv --json "$T/a.mtx"
run_fails 2 "tcstat: no input file" "no input" -- "$TCSTAT"
run_fails 2 "tcstat: standard input (-) given more than once" "stdin twice" -- "$TCSTAT" - -
done_testing
