#!/bin/sh
# layers.sh: the folders are the layers (DESIGN.md, Layout), lowest first:
#
#   lib/ <- formats/ <- kernels/ <- plan/ <- tools/
#
# (lib/reorder/ is lib/; plan/ sits above kernels/: it loads the GPU library
# and calls the kernels through their table, kernels/gpu_api.h, and tools/
# are options and printing over all of it). A file that needs something of
# a layer above belongs up there (as formats/tcf_formats.c and
# formats/tcbsort.c do). Checked, each failure naming its edge or circle:
#
# 1. includes: no source includes a header of a layer above its own. Each
#    #include "..." is resolved as the compiler resolves it: the including
#    file's directory first, then -I lib formats kernels plan.
# 2. no include circle among the files.
# 3. calls, in the built objects (nm): no object calls a function that only
#    a layer above defines (kernels/ call the GPU library's own tc_gpu_*,
#    not plan/gpucalls.c's trampolines of the same names), and no two of
#    tools/' files call each other, directly or round a longer circle.
. "${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib.sh"
cd "$top_srcdir" || exit 1

LAYERS="lib formats kernels plan tools"

# The awk prelude that maps a path to its layer's rank (lib/ is 1).
rank_awk='function rank(p,  d) { d = p; sub("/.*", "", d); return r[d] }
BEGIN { n = split("'"$LAYERS"'", l, " "); for (i = 1; i <= n; i++) r[l[i]] = i }'

# include_edges ROOT: "FILE HEADER" for each #include "..." of the sources
# of the layers under ROOT that resolves to a file there (paths relative to
# ROOT, normalised).
include_edges() (
    cd "$1" || exit 1
    for layer in $LAYERS; do
        [ -d "$layer" ] && find "$layer" \( -name '*.c' -o -name '*.h' -o -name '*.cu' \
            -o -name '*.cuh' \)
    done | sort | while read -r f; do
        sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
            while read -r inc; do
                for dir in "${f%/*}" lib formats kernels plan; do
                    if [ -f "$dir/$inc" ]; then
                        echo "$f $(realpath -m --relative-to=. "$dir/$inc")"
                        break
                    fi
                done
            done
    done
)

# up_edges: of "FROM TO" lines, those whose TO is in a layer above FROM's,
# as "FROM -> TO".
up_edges() {
    awk "$rank_awk"'
        rank($2) > rank($1) { print $1 " -> " $2 }'
}

# circle: of "FROM TO" lines, the files of a circle, if any, on one line.
circle() {
    awk '$1 != $2' | tsort 2>&1 >/dev/null | sed -n 's/^tsort: \([^-].*\)/\1/p' |
        grep -v 'input contains a loop' | tr '\n' ' ' | sed 's/ $//'
}

# built_objects SRC: the objects under the current directory (a build
# tree) that a source of SRC still makes (FILE.c or FILE.cu beside it in
# SRC; automake names a program's objects PROGRAM-FILE.o), so that the
# object of a file since moved or removed is not read.
built_objects() {
    for layer in $LAYERS; do
        [ -d "$layer" ] && find "$layer" -name '*.o' ! -path '*/.libs/*'
    done | sort | while read -r o; do
        stem=${o%.o}
        dir=${stem%/*} base=${stem##*/}
        for name in "$base" "${base#*-}"; do
            if [ -f "$1/$dir/$name.c" ] || [ -f "$1/$dir/$name.cu" ]; then
                echo "$o"
                break
            fi
        done
    done
}

# call_edges ROOT SRC: "USER DEFINER SYMBOL" for each global function or
# datum an object of the layers under ROOT (built from SRC) uses and
# another defines; of several definers, the one in the lowest layer (the
# one the user's own library links, where a higher layer defines a
# namesake).
call_edges() {
    (
        src=$(cd "$2" && pwd)
        cd "$1" || exit 1
        objects=$(built_objects "$src")
        for o in $objects; do
            nm -g --defined-only "$o" | awk -v o="$o" 'NF == 3 { print "D", $3, o }'
        done
        for o in $objects; do
            nm -u "$o" | awk -v o="$o" '{ print "U", $2, o }'
        done
    ) | awk "$rank_awk"'
        $1 == "D" { def[$2] = def[$2] " " $3; next }
        {
            n = split(def[$2], d, " "); best = ""
            for (i = 1; i <= n; i++)
                if (d[i] != $3 && (best == "" || rank(d[i]) < rank(best)))
                    best = d[i]
            if (best != "") print $3, best, $2
        }'
}

# up_calls: of call_edges' lines, those into a layer above, as
# "USER -> DEFINER (SYMBOL)".
up_calls() {
    awk "$rank_awk"'
        rank($2) > rank($1) { print $1 " -> " $2 " (" $3 ")" }' | sort -u
}

# tool_calls: of call_edges' lines, "USER DEFINER" between two tools/ files.
tool_calls() {
    awk '$1 ~ /^tools\// && $2 ~ /^tools\// { print $1, $2 }' | sort -u
}

# ------------------------------------------------------------ the tree

edges=$(include_edges .)
[ -n "$edges" ]
ok $? "the include graph of $(printf '%s\n' "$edges" | wc -l) edges is read"

up=$(printf '%s\n' "$edges" | up_edges)
[ -z "$up" ]
ok $? "no source includes a header of a layer above its own${up:+: $up}"

loop=$(printf '%s\n' "$edges" | circle)
[ -z "$loop" ]
ok $? "no include circle${loop:+: $loop}"

if [ -f "$top_builddir/lib/error.o" ]; then
    calls=$(call_edges "$top_builddir" "$top_srcdir")
    up=$(printf '%s\n' "$calls" | up_calls)
    [ -z "$up" ]
    ok $? "no object calls a function only a layer above defines${up:+: $up}"
    loop=$(printf '%s\n' "$calls" | tool_calls | circle)
    [ -z "$loop" ]
    ok $? "no two files of tools/ call each other${loop:+: $loop}"
else
    skip "the call checks read the built objects: none in $top_builddir"
    skip "the tools/ call circle check reads the built objects"
fi

# ------------------------------------------------------------ the checks fail

mkdir -p "$T/src/lib" "$T/src/formats" "$T/src/kernels" "$T/src/plan" "$T/src/tools"
touch "$T/src/formats/formats.h" "$T/src/kernels/kernels.h" "$T/src/plan/plan.h"
printf '#include "config.h"\n#include "formats.h"\n' > "$T/src/lib/bad.c"
printf '#  include "kernels.h"\n' > "$T/src/lib/bad.h"
printf '#include "../plan/plan.h"\n' > "$T/src/kernels/up.cu"
printf '#include "kernels.h"\n' > "$T/src/plan/down.c"
up=$(include_edges "$T/src" | up_edges)
is "$up" "kernels/up.cu -> plan/plan.h
lib/bad.c -> formats/formats.h
lib/bad.h -> kernels/kernels.h" \
    "includes up are caught (however indented, through ../), plan/ including kernels/ is not"

printf '#include "b.h"\n' > "$T/src/formats/a.h"
printf '#include "c.h"\n' > "$T/src/formats/b.h"
printf '#include "a.h"\n' > "$T/src/formats/c.h"
loop=$(include_edges "$T/src" | circle)
is "$loop" "formats/a.h formats/b.h formats/c.h" "an include circle of three headers is named"

if command -v cc >/dev/null && command -v nm >/dev/null; then
    rm -f "$T"/src/*/*.[ch] "$T"/src/*/*.cu
    obj() {   # obj FILE SOURCE: compiles SOURCE into FILE.o
        printf '%s\n' "$2" > "$T/src/$1.c"
        cc -c "$T/src/$1.c" -o "$T/src/$1.o"
    }
    obj lib/draw 'int fmt_build(void); int draw(void) { return fmt_build(); }'
    obj formats/fmt 'int fmt_build(void) { return 1; }'
    obj kernels/k 'int gpu_alloc(void); int k(void) { return gpu_alloc(); }'
    obj kernels/gpu 'int gpu_alloc(void) { return 2; }'
    obj plan/gpucalls 'int gpu_alloc(void) { return 3; }'
    obj tools/one 'int two(int); int one(int x) { return x ? two(x - 1) : 0; }'
    obj tools/two 'int one(int); int two(int x) { return x ? one(x - 1) : 0; }'
    obj lib/gone 'int fmt_build(void); int gone(void) { return fmt_build(); }'
    rm "$T/src/lib/gone.c"
    calls=$(call_edges "$T/src" "$T/src")
    is "$(printf '%s\n' "$calls" | up_calls)" "lib/draw.o -> formats/fmt.o (fmt_build)" \
        "a call up is caught; one that its own layer also serves is not, nor an object whose source is gone"
    is "$(printf '%s\n' "$calls" | tool_calls | circle)" "tools/one.o tools/two.o" \
        "two tools/ files that call each other are named"
else
    skip "no cc or nm: the call checks' own test"
    skip "no cc or nm: the call checks' own test"
fi

done_testing
