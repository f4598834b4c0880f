#!/bin/sh
# layers.sh: the folders are the layers (DESIGN.md, Layout): lib/ <-
# formats/ <- kernels/ <- tools/, and no back edge. No source of lib/
# (lib/reorder/ included) may include a header of formats/ or kernels/, and
# no source of formats/ a header of kernels/: a file that needs one belongs
# a layer up (as formats/tcf_formats.c and formats/tcbsort.c do). Headers
# are matched by file name, as the compiler finds them (-I lib -I formats
# -I kernels). Calls are checked too, in the built objects.
. "${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib.sh"
cd "$top_srcdir" || exit 1

# headers_of DIR: the header file names in DIR, one a line.
headers_of() {
    for h in "$1"/*.h "$1"/*.cuh; do
        [ -f "$h" ] && echo "${h##*/}"
    done
}

# includes_of FILES...: "file: header" for each #include "..." of FILES.
includes_of() {
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1" |
        while read -r inc; do echo "$1: ${inc##*/}"; done
}

# back_edges UPPER_DIRS -- FILES...: the includes of FILES that name a
# header of UPPER_DIRS.
back_edges() {
    uppers=
    while [ "$1" != -- ]; do uppers="$uppers $1"; shift; done
    shift
    headers_of_uppers=$(for d in $uppers; do headers_of "$d"; done)
    for f in "$@"; do
        includes_of "$f"
    done | while read -r file inc; do
        printf '%s\n' "$headers_of_uppers" | grep -qxF "$inc" && echo "$file $inc"
    done
}

lib_sources=$(find lib -name '*.c' -o -name '*.h' | sort)
formats_sources=$(find formats -name '*.c' -o -name '*.h' | sort)

edges=$(back_edges formats kernels -- $lib_sources)
[ -z "$edges" ]
ok $? "no lib/ source includes a formats/ or kernels/ header${edges:+: $edges}"

edges=$(back_edges kernels -- $formats_sources)
[ -z "$edges" ]
ok $? "no formats/ source includes a kernels/ header${edges:+: $edges}"

# The check itself: a lib/ file that includes formats.h is caught.
mkdir "$T/lib"
printf '#include "config.h"\n#include "formats.h"\n' > "$T/lib/bad.c"
edges=$(back_edges formats kernels -- "$T/lib/bad.c")
is "$edges" "$T/lib/bad.c: formats.h" "an include of formats.h from lib/ is a back edge"
printf '#  include "kernels.h"\n' > "$T/lib/bad.h"
edges=$(back_edges formats kernels -- "$T/lib/bad.h")
is "$edges" "$T/lib/bad.h: kernels.h" "... and one of kernels.h, however indented"

# Calls, not only includes: tcsparse.h declares the formats' public
# functions, so a lib/ file could call one without including a formats/
# header (lib/plot.c once did). No object built from lib/ may use a
# function that an object built from formats/ defines.
# call_edges OBJECT...: "object symbol" for each such use.
nm -g --defined-only "$top_builddir"/formats/*.o | awk '$2 == "T" { print $3 }' | sort -u > "$T/formats.sym"
call_edges() {
    for o in "$@"; do nm -u "$o" | awk -v f="${o#"$top_builddir"/}" '{ print f, $NF }'; done |
        awk 'NR == FNR { d[$1]; next } ($2 in d)' "$T/formats.sym" -
}
lib_objects=$(find "$top_builddir/lib" -name '*.o' | sort)
[ -n "$lib_objects" ] && [ -s "$T/formats.sym" ]
ok $? "the objects of lib/ and the functions of formats/ are found in $top_builddir"
edges=$(call_edges $lib_objects)
[ -z "$edges" ]
ok $? "no lib/ object calls a function of formats/${edges:+: $edges}"
printf 'int tc_fmt_nnz_part(void);\nint f(void) { return tc_fmt_nnz_part(); }\n' > "$T/lib/call.c"
${CC:-cc} -c "$T/lib/call.c" -o "$T/lib/call.o"
is "$(call_edges "$T/lib/call.o" | cut -d' ' -f2)" "tc_fmt_nnz_part" "... a call of tc_fmt_nnz_part from lib/ is caught"

done_testing
