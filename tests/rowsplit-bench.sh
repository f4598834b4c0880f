#!/bin/sh
# rowsplit-bench.sh: bench/rowsplit.sh (which writes bench/results/rowsplit.tsv
# on a GPU) cannot rot unseen: an unknown option exits 2; each MATRIX is
# converted once per -s segment cost and timed at each -n, one row each
# with the seg column after the matrix and a command that starts with the
# conversion. Without a GPU a stand-in tcmul answers with the segments
# tcstat counts in the file it was given (as variants.vec4_ms), so the
# table shows that each seg reached its file; on a GPU the real tcmul runs
# and every row's --verify must pass.
. "${top_srcdir:-.}/tests/lib.sh"
SCRIPT=$top_srcdir/bench/rowsplit.sh

sh "$SCRIPT" -x 2> /dev/null
is $? 2 "an unknown option: exit 2"

if "$TOOLS/tcmul" --list-devices > /dev/null 2>&1; then
    TCMUL=$TOOLS/tcmul TCCONV=$TOOLS/tcconv sh "$SCRIPT" -o "$T/r.tsv" -n "8 32" -s "16 64" \
        "$DATA/cora.mtx.gz" 2> "$T/err"
    ok $? "bench/rowsplit.sh on cora, n = 8 and 32, seg = 16 and 64"
    is "$(awk -F '\t' 'NR > 1 { print $5, $10, $NF ~ /^tcconv -f rowsplit/ ? $(NF - 1) : "?" }' \
        "$T/r.tsv" | tr '\n' ,)" "16 8 pass,16 32 pass,64 8 pass,64 32 pass," \
        "a row per seg and n, each verified"
else
    mkdir "$T/bin"
    cat > "$T/bin/tcmul" <<STUB
#!/bin/sh
for last; do :; done
segs=\$("$TOOLS/tcstat" -f rowsplit --tsv "\$last" | awk -F '\t' '\$2 == "format.rowsplit" && \$3 == "segments" { print \$4 }')
printf 'file\tsection\tkey\tvalue\n'
printf 'x\trun\tdevice\tstand-in\nx\tinput\tn\t%s\nx\tvariants\tvec4_ms\t%s\nx\tverify\tresult\tpass\n' \
    "\$(echo "\$*" | sed 's/.*--cols \([0-9]*\).*/\1/')" "\$segs"
STUB
    chmod +x "$T/bin/tcmul"
    TCMUL=$T/bin/tcmul TCCONV=$TOOLS/tcconv sh "$SCRIPT" -o "$T/r.tsv" -n "8 32" -s "16 64" \
        "$DATA/cora.mtx.gz" 2> "$T/err"
    ok $? "bench/rowsplit.sh with a stand-in tcmul"
    is "$(sed -n 1p "$T/r.tsv" | cut -f 1-7)" "device	date	commit	matrix	seg	order	rows" \
        "the seg and order columns follow the matrix"
    segments() {
        "$TOOLS/tcconv" -q -f rowsplit -p "seg=$1" "$DATA/cora.mtx.gz" -o "$T/c$1.tcf.h5" &&
            "$TOOLS/tcstat" -f rowsplit --tsv "$T/c$1.tcf.h5" |
            awk -F '\t' '$3 == "segments" { print $4 }'
    }
    s16=$(segments 16) s64=$(segments 64)
    is "$(awk -F '\t' -v OFS=' ' 'NR > 1 { print $1, $4, $5, $10, $18 }' "$T/r.tsv" | tr '\n' ,)" \
        "stand-in cora 16 8 $s16,stand-in cora 16 32 $s16,stand-in cora 64 8 $s64,stand-in cora 64 32 $s64," \
        "a row per seg and n, each timed on its own conversion ($s16 and $s64 segments)"
    is "$(awk -F '\t' 'NR == 2 { print $NF }' "$T/r.tsv")" \
        "tcconv -f rowsplit -p seg=16 -o cora-seg16-orderdefault.tcf.h5 cora.mtx.gz && tcmul --device gpu --no-plan-cache --format rowsplit --bench --verify --tsv --cols 8 --seed 8 cora-seg16-orderdefault.tcf.h5" \
        "the command starts with the conversion"
    TCMUL=$T/bin/tcmul TCCONV=$TOOLS/tcconv sh "$SCRIPT" -o "$T/d.tsv" -n 8 "$DATA/cora.mtx.gz" \
        2> "$T/err"
    ok $? "bench/rowsplit.sh without -s"
    "$TOOLS/tcconv" -q -f rowsplit "$DATA/cora.mtx.gz" -o "$T/cd.tcf.h5"
    sd=$("$TOOLS/tcstat" -f rowsplit --tsv "$T/cd.tcf.h5" | awk -F '\t' '$3 == "segments" { print $4 }')
    is "$(awk -F '\t' -v OFS=' ' 'NR > 1 { print $5, $6, $18, $NF }' "$T/d.tsv")" \
        "default default $sd tcconv -f rowsplit -o cora-segdefault-orderdefault.tcf.h5 cora.mtx.gz && tcmul --device gpu --no-plan-cache --format rowsplit --bench --verify --tsv --cols 8 --seed 8 cora-segdefault-orderdefault.tcf.h5" \
        "without -s and -r: the format's own seg and order (no -p), columns 'default'"
    TCMUL=$T/bin/tcmul TCCONV=$TOOLS/tcconv sh "$SCRIPT" -o "$T/o.tsv" -n 8 -s 64 -r "0 1" \
        "$DATA/cora.mtx.gz" 2> "$T/err"
    ok $? "bench/rowsplit.sh -s 64 -r '0 1'"
    is "$(awk -F '\t' 'NR > 1 { print $6, $NF }' "$T/o.tsv" | sed 's/ && tcmul.*//' | tr '\n' ,)" \
        "0 tcconv -f rowsplit -p seg=64,order=0 -o cora-seg64-order0.tcf.h5 cora.mtx.gz,1 tcconv -f rowsplit -p seg=64,order=1 -o cora-seg64-order1.tcf.h5 cora.mtx.gz," \
        "-r: a row per order, its conversion in the command"
fi

done_testing
