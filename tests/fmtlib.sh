# fmtlib.sh: what the tool tests of a tensor-core format share. Source it
# after tests/lib.sh; FORMAT names the format, /formats/FORMAT its group.
# It names the tools (TCCONV, TCSTAT, TCPLOT) and skips the whole test
# where h5dump, which the helpers read files with, is missing.
#
#   fmt_datasets FORMAT FILE      "NAME TYPE LENGTH" for each dataset
#   fmt_data FORMAT FILE DATASET  its values, ", " between them
#   fmt_attrs FORMAT FILE NAME... "NAME=VALUE " for each attribute named
#   fmt_figures TSV SECTION [KEYS]
#                                 "KEY=VALUE " for each row of section
#                                 SECTION of a tcstat --tsv report (KEYS:
#                                 an awk regex the key must match)
#   fmt_tampered FORMAT FILE NAME DATASET OFFSET BYTES MESSAGE
#                                 tcstat and tcplot refuse a copy of FILE
#                                 with BYTES written into DATASET
#   fmt_tampered_stat FORMAT FILE NAME DATASET OFFSET BYTES MESSAGE
#                                 the same, tcstat alone (a format without
#                                 parts, which tcplot does not draw)
#   fmt_is_png FILE
#   fmt_big_pattern FILE SEED     a 3001 x 2500 pattern .mtx, 20000 random
#                                 entries (awk's srand(SEED))
#   fmt_hand_20x40 FILE           the example t_bcsr and t_hrpb work by hand

TCCONV=$TOOLS/tcconv
TCSTAT=$TOOLS/tcstat
TCPLOT=$TOOLS/tcplot
command -v h5dump >/dev/null 2>&1 || skip_all "h5dump not installed (Debian: hdf5-tools)"

fmt_datasets() {
    h5dump -H -g "/formats/$1" "$2" | awk '
        /DATASET "/ { split($0, q, "\""); name = q[2] }
        name != "" && /DATATYPE/ { type = $2 }
        name != "" && /DATASPACE/ { sub(/.*\( /, ""); sub(/ \).*/, ""); print name, type, $0; name = "" }'
}

fmt_data() {
    h5dump -d "/formats/$1/$3" "$2" | sed -n 's/^ *([0-9]*): //p' | tr '\n' ' ' |
        sed 's/  */ /g; s/ $//'
}

fmt_attrs() {
    _f=$1 _file=$2; shift 2
    for _a in "$@"; do
        printf '%s=%s ' "$_a" "$(h5dump -a "/formats/$_f/$_a" "$_file" | sed -n 's/^ *(0): //p')"
    done
}

fmt_figures() {
    awk -F'\t' -v s="$2" -v k="${3:-.}" '$2 == s && $3 ~ k { printf "%s=%s ", $3, $4 }' "$1"
}

# fmt_patch FORMAT FILE DATASET BYTE-OFFSET OCTAL-BYTES: overwrites bytes of
# a contiguous (uncompressed) dataset, at its storage offset that h5dump -p
# reports.
fmt_patch() {
    _at=$(h5dump -p -H -d "/formats/$1/$3" "$2" | awk '/OFFSET/ { print $2 }')
    printf "$5" | dd of="$2" bs=1 seek=$((_at + $4)) conv=notrunc 2>/dev/null
}

fmt_tampered_stat() {
    cp "$2" "$T/bad.tcf.h5"
    fmt_patch "$1" "$T/bad.tcf.h5" "$4" "$5" "$6"
    run_fails 1 "tcstat: $T/bad.tcf.h5: /formats/$1$7" "tcstat refuses $3" \
        -- "$TOOLS/tcstat" -f "$1" "$T/bad.tcf.h5"
}

fmt_tampered() {
    fmt_tampered_stat "$@"
    run_fails 1 "tcplot: $T/bad.tcf.h5: /formats/$1$7" "tcplot refuses $3" \
        -- "$TOOLS/tcplot" -f "$1" "$T/bad.tcf.h5" -o "$T/bad.png"
    [ ! -e "$T/bad.png" ]; ok $? "  and leaves no picture"
}

fmt_big_pattern() {
    awk -v seed="$2" 'BEGIN { srand(seed); n = 20000
        print "%%MatrixMarket matrix coordinate pattern general"; print 3001, 2500, n
        for (k = 0; k < n; k++) print int(rand() * 3001) + 1, int(rand() * 2500) + 1 }' > "$1"
}

# 20 x 40, value of (r, c) = 100 r + c + 1 (0-based) but (3, 5), an
# explicit zero: (0, 0) (0, 17) (3, 5) (15, 39) (16, 16) (19, 0); rows
# 16-19 a partial window of 16.
fmt_hand_20x40() {
    printf '%s\n' '%%MatrixMarket matrix coordinate real general' '20 40 6' '1 1 1' '1 18 18' \
        '4 6 0' '16 40 1540' '17 17 1617' '20 1 1901' > "$1"
}

fmt_png_sig=$(printf '\211PNG' | od -An -tx1 | tr -d ' ')
fmt_is_png() { [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' ')" = "$fmt_png_sig" ]; }
