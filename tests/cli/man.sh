#!/bin/sh
# The man pages document exactly the options --help lists, with the same
# defaults: for every command, the options of `crfpipe CMD --help` (the
# trainer's with each trainer in the tree) against the option entries of
# doc/man/crfpipe-CMD.1.scd, and the global options against crfpipe(1).
. "$top_srcdir/tests/pipeline/common.sh"
man="$top_srcdir/doc/man"
awkdir="$top_srcdir/tests/cli"

# compare LABEL HELPROWS MANROWS: rows "SECTION<tab>NAME<tab>DEFAULT".  Each
# name's default is taken from its last row (a trainer's own section comes
# after the common one, as its declaration wins).
compare() {
    label=$1
    awk -F'\t' '{ d[$2] = $3 } END { for (n in d) print n "\t" d[n] }' "$2" | sort >"$tmp/h"
    awk -F'\t' '{ d[$2] = $3 } END { for (n in d) print n "\t" d[n] }' "$3" | sort >"$tmp/m"
    cut -f1 "$tmp/h" >"$tmp/hn"
    cut -f1 "$tmp/m" >"$tmp/mn"
    for o in $(comm -23 "$tmp/hn" "$tmp/mn"); do fail "$label: $o is in --help but not in the man page"; done
    for o in $(comm -13 "$tmp/hn" "$tmp/mn"); do fail "$label: $o is in the man page but not in --help"; done
    join -t "$(printf '\t')" "$tmp/h" "$tmp/m" | awk -F'\t' -v l="$label" \
        '$2 != $3 { printf "%s: %s: default \"%s\" in --help, \"%s\" in the man page\n", l, $1, $2, $3 }' \
        >"$tmp/diff"
    if [ -s "$tmp/diff" ]; then fail "defaults differ:"; cat "$tmp/diff" >&2; fi
}

for c in $("$CRFPIPE" help --commands); do
    page="$man/crfpipe-$c.1.scd"
    [ -f "$page" ] || { fail "no man page for $c ($page)"; continue; }
    grep -q "^crfpipe-$c(1)$" "$page" || fail "$page: not titled crfpipe-$c(1)"
    if [ "$c" = train ]; then
        set -- lbfgs sgd-l1 perceptron rprop
    else
        set -- ""
    fi
    for t in "$@"; do
        if [ -n "$t" ]; then
            "$CRFPIPE" train --trainer "$t" --help >"$tmp/help" || fail "train --trainer $t --help"
            sect="OPTIONS OF TRAINER $(echo "$t" | tr 'a-z-' 'A-Z_')"
            grep -q "^# $sect\$" "$page" || fail "$page: no section '$sect'"
        else
            "$CRFPIPE" "$c" --help >"$tmp/help" || fail "$c --help"
            sect=""
        fi
        awk -f "$awkdir/helpopts.awk" "$tmp/help" | { grep -v '^Global options' || true; } >"$tmp/hrows"
        # the man page's entries minus the global ones and the other trainers'
        awk -f "$awkdir/manopts.awk" "$page" | awk -F'\t' -v s="$sect" \
            '$1 != "GLOBAL OPTIONS" && ($1 !~ /^OPTIONS OF TRAINER / || $1 == s)' >"$tmp/mrows"
        compare "crfpipe-$c(1)${t:+ (trainer $t)}" "$tmp/hrows" "$tmp/mrows"
    done
done

# global options: crfpipe --help against crfpipe(1)
"$CRFPIPE" --help | awk -f "$awkdir/helpopts.awk" | grep '^Global options' >"$tmp/hrows"
awk -f "$awkdir/manopts.awk" "$man/crfpipe.1.scd" | grep '^GLOBAL OPTIONS' >"$tmp/mrows"
[ -s "$tmp/hrows" ] || fail "crfpipe --help lists no global option"
compare "crfpipe(1) global options" "$tmp/hrows" "$tmp/mrows"

# every command is in crfpipe(1)'s list
for c in $("$CRFPIPE" help --commands); do
    grep -q "^\*$c\*\$" "$man/crfpipe.1.scd" || fail "crfpipe(1) does not list the command $c"
done

# the XML examples of the format pages are valid documents and pipelines
for f in document pipeline; do
    awk -v out="$tmp/ex-$f" '/^```$/ { n++; next } n % 2 == 1 { print > (out "-" int(n / 2) ".xml") }' \
        "$man/crfpipe-$f.5.scd"
    for x in "$tmp"/ex-$f-*.xml; do
        "$CRFPIPE" validate --schema "$f" "$x" >/dev/null 2>"$tmp/err" ||
            { fail "crfpipe-$f(5): an example is not valid"; cat "$tmp/err" >&2; }
    done
done

# the built pages render and say what they are (in a build from the
# distribution they come with the sources)
pages="$top_builddir/doc/man"
[ -f "$pages/crfpipe.1" ] || pages="$top_srcdir/doc/man"
for p in "$pages"/*.[135]; do
    [ -f "$p" ] || { fail "no built man pages in $top_builddir/doc/man or $pages"; break; }
    name=$(basename "$p")
    if command -v man >/dev/null 2>&1; then
        MANWIDTH=80 man -l -P cat "$p" 2>/dev/null | grep -q "^NAME" || fail "$name does not render"
    fi
done
finish
