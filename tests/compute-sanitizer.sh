#!/bin/sh
# bench/compute-sanitizer.sh without a GPU: a stand-in compute-sanitizer
# prints a racecheck summary (its hazards set per matrix) and logs the
# tcmul command lines it was given. Checked: one row per case with the
# sanitizer's count, tcmul's status and the run's seconds; a hazard makes
# the script fail and is reported; -r keeps the passed rows and runs only
# the rest, skipping the variants of a case that passed whole; -c adds
# cases; runs go round-robin over the GPUs nvidia-smi lists, or all on
# CUDA_VISIBLE_DEVICES when it is set.
. "${top_srcdir:-.}/tests/lib.sh"
SCRIPT=$top_srcdir/bench/compute-sanitizer.sh
command -v bash >/dev/null 2>&1 || skip_all "bash not installed"

mkdir "$T/bin"
cat > "$T/bin/fake-cs" <<EOF
#!/bin/sh
echo "\$CUDA_VISIBLE_DEVICES \$*" >> "$T/calls"
case "\$*" in
*citeseer*) echo "RACECHECK SUMMARY: 1 hazard displayed (1 error, 2 warnings)"; exit 99 ;;
esac
echo "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
EOF
cat > "$T/bin/nvidia-smi" <<'EOF'
#!/bin/sh
case $1 in
-L) printf 'GPU 0: A\nGPU 1: B\nGPU 2: C\n' ;;
*) echo "Stand-in GPU" ;;
esac
EOF
chmod +x "$T/bin/fake-cs" "$T/bin/nvidia-smi"
export COMPUTE_SANITIZER=$T/bin/fake-cs TCMUL=$TOOLS/tcmul TCCONV=$TOOLS/tcconv COMMIT=test
PATH=$T/bin:$PATH
unset CUDA_VISIBLE_DEVICES
cora=$DATA/cora.mtx.gz citeseer=$DATA/citeseer.mtx.gz

# rows TSV: "matrix|case|errors|exit" per row, sorted
rows() { awk -F'\t' 'NR > 1 { print $5 "|" $6 "|" $7 "|" $8 }' "$1" | sort; }

bash "$SCRIPT" -o "$T/a.tsv" -t racecheck -f bcsr -a "" -j 2 "$cora" 2> "$T/a.err"
ok $? "a clean grid exits 0"
is "$(rows "$T/a.tsv" | tr '\n' ' ')" "cora|--format=bcsr --cols=128|0|0 cora|--format=bcsr --cols=7|0|0 " \
    "one row per case: bcsr at n = 7 and 128"
is "$(head -n 1 "$T/a.tsv")" "$(printf 'device\tdate\tcommit\ttool\tmatrix\tcase\terrors\texit\tseconds\tcommand')" \
    "the header names the seconds column"
awk -F'\t' 'NR > 1 && !($9 ~ /^[0-9]+$/ && $3 == "test")' "$T/a.tsv" | grep -q .
ok $((! $?)) "each row has its seconds and the commit"
grep -q -- "--tool racecheck --error-exitcode 99 --print-limit 10 $TOOLS/tcmul --device gpu --format=bcsr --cols=7 --verify --warmup 0 --iters 1 -q" "$T/calls"
ok $? "tcmul runs under the sanitizer with --verify --warmup 0 --iters 1"
is "$(cut -d' ' -f1 "$T/calls" | sort | tr '\n' ' ')" "0 1 " "two runs on two GPUs, round-robin"

: > "$T/calls"
bash "$SCRIPT" -o "$T/b.tsv" -t racecheck -f "" -a "" -c "--format=bsb,--cols=3" -j 2 \
    "$cora" "$citeseer" 2> "$T/b.err"
is $? 1 "a hazard makes the script fail"
is "$(rows "$T/b.tsv" | tr '\n' ' ')" "citeseer|--format=bsb --cols=3|3|99 cora|--format=bsb --cols=3|0|0 " \
    "-c adds a case; errors count errors plus warnings, exit is tcmul's under the sanitizer"
grep -q "== racecheck citeseer --format=bsb --cols=3: exit 99, errors 3" "$T/b.err"
ok $? "the failing run is reported with its log"

# Resume from a.tsv (cora passed at n = 7 and 128): only citeseer runs,
# and a --variant of a case that passed whole is skipped.
: > "$T/calls"
bash "$SCRIPT" -o "$T/c.tsv" -r "$T/a.tsv" -t racecheck -f bcsr -a "" \
    -c "--format=bcsr,--cols=7,--variant=tc" -j 2 "$cora" "$citeseer" 2> "$T/c.err"
is "$(grep -c cora "$T/calls")" 0 "-r: nothing of cora runs again"
is "$(wc -l < "$T/calls" | tr -d ' ')" 3 "-r: citeseer's three cases run"
is "$(rows "$T/c.tsv" | grep -c '^cora|')" 2 "-r: cora's passed rows are kept"
is "$(awk -F'\t' '$5 == "cora" { print $2 }' "$T/c.tsv" | sort -u)" \
    "$(awk -F'\t' 'NR == 2 { print $2 }' "$T/a.tsv")" "-r: kept rows keep their own date"
bash "$SCRIPT" -o "$T/a.tsv" -r "$T/a.tsv" -t racecheck -f bcsr -a "" "$cora" 2> "$T/d.err"
ok $? "-r naming the output itself: nothing left to run"
is "$(rows "$T/a.tsv" | wc -l | tr -d ' ')" 2 "-r naming the output itself keeps its rows"
printf 'device\tdate\tcommit\ttool\tmatrix\tcase\terrors\texit\tcommand\n' > "$T/old.tsv"
printf 'H\tD\tC\tracecheck\tcora\t--format=bcsr --cols=7\t0\t0\tcs tcmul\n' >> "$T/old.tsv"
: > "$T/calls"
bash "$SCRIPT" -o "$T/e.tsv" -r "$T/old.tsv" -t racecheck -f bcsr -a "" "$cora" 2> "$T/e.err"
is "$(awk -F'\t' '$1 == "H" { print $9 "|" $10 }' "$T/e.tsv")" "-|cs tcmul" \
    "-r: a row from before the seconds column gets '-' there"
is "$(wc -l < "$T/calls" | tr -d ' ')" 1 "-r: only the case the old table lacks runs"

: > "$T/calls"
CUDA_VISIBLE_DEVICES=5 bash "$SCRIPT" -o "$T/f.tsv" -t racecheck -f bcsr -a "" "$cora" 2> "$T/f.err"
is "$(cut -d' ' -f1 "$T/calls" | sort -u)" 5 "CUDA_VISIBLE_DEVICES set: every run on it"

bash "$SCRIPT" -r "$T/missing.tsv" -o "$T/g.tsv" "$cora" 2> "$T/g.err"
is $? 1 "-r naming a missing file fails"
is "$(cat "$T/g.err")" "$SCRIPT: -r $T/missing.tsv: cannot read it" "-r: the message"
bash "$SCRIPT" -x 2> "$T/h.err"
is $? 2 "an unknown option is a usage error"

done_testing
