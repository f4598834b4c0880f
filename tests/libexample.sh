#!/bin/sh
# The example program of man/libtcsparse.3 compiles against the installed
# header and the built library, and does what the page says.
. "${top_srcdir:-.}/tests/lib.sh"
command -v cc >/dev/null || skip_all "no C compiler (cc)"
lib=$top_builddir/lib/.libs
[ -e "$lib/libtcsparse.so" ] || skip_all "no shared libtcsparse in $lib"

# roff to C: the K-th .nf/.fi block after .SH EXAMPLES, with roff escapes
# undone.
example() {
    sed -n '/^\.SH EXAMPLES/,/^\.SH/p' "$top_srcdir/man/libtcsparse.3" |
        awk -v k="$1" '/^\.nf/ { n++; next } /^\.fi/ { next } n == k && /^\.(RE|PP|RS)/ { n = -1 }
                       n == k' | sed 's/\\e/\\/g; s/\\-/-/g'
}
example 1 > "$T/ex.c"
grep -q 'tc_h5_write' "$T/ex.c"; ok $? "the example was extracted from the man page"
# (with the build's own CFLAGS and LDFLAGS: a sanitized library needs a
# sanitized program)
# shellcheck disable=SC2086 # the flags are word lists
cc -std=c11 -Wall -Werror ${TC_CFLAGS:-} -I"$top_srcdir/lib" "$T/ex.c" -o "$T/ex" -L"$lib" \
    -ltcsparse ${TC_LDFLAGS:-} 2> "$T/cc.err"
ok $? "it compiles without warnings"; [ -s "$T/cc.err" ] && diag "$(cat "$T/cc.err")"
(cd "$T" && LD_LIBRARY_PATH=$lib ./ex "$DATA/cora.mtx.gz" > out.txt)
ok $? "it runs"
is "$(cat "$T/out.txt")" "1586 TC blocks of 16x8" "it prints cora's 16x8 block count"
h5ls "$T/out.tcf.h5" | grep -q '^matrix'; ok $? "it writes a .tcf.h5 with /matrix"
# The second: a plan multiplies host arrays and its C passes the float64
# check (on the CPU, GPU or not: for cora's 13k nonzeros even 1000 products
# do not pay for the GPU's set-up).
example 2 > "$T/plan.c"
grep -q 'tc_plan_execute_host' "$T/plan.c"; ok $? "the plan example was extracted"
# shellcheck disable=SC2086 # the flags are word lists
cc -std=c11 -Wall -Werror ${TC_CFLAGS:-} -I"$top_srcdir/lib" -I"$top_srcdir/plan" "$T/plan.c" \
    -o "$T/plan" -L"$lib" -ltcsparse ${TC_LDFLAGS:-} 2> "$T/cc.err"
ok $? "it compiles without warnings"; [ -s "$T/cc.err" ] && diag "$(cat "$T/cc.err")"
(cd "$T" && LD_LIBRARY_PATH=$lib ./plan "$DATA/cora.mtx.gz" > plan.txt 2> plan.err)
ok $? "it runs"; [ -s "$T/plan.err" ] && diag "$(cat "$T/plan.err")"
case $(cat "$T/plan.txt") in
*" on "*": pass") good=0 ;;
*) good=1 ;;
esac
ok $good "it prints the plan's path and pass ($(cat "$T/plan.txt"))"
done_testing
