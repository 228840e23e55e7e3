#!/bin/sh
# `crfpipe plugins`: listing, describing, and failing clearly.
set -u
: "${CRFPIPE:?}" "${top_builddir:?}"
moddir="$top_builddir/tests/host"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crfp-plugins.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
has() { grep -q -- "$2" "$1" || fail "$1 lacks '$2'"; }

# Listing: good module shown in columns, broken ones reported as warnings.
"$CRFPIPE" --plugin-path "$moddir" plugins >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "plugins listing exited $rc"
has "$tmp/out" '^NAME  *KIND  *VERSION  *FILE  *DESCRIPTION$'
grep -Eq '^tp_good +tagger +1\.2 +[^ ]*/tests/host/[^ ]*tp_good[^ ]* +well-formed test plugin$' \
    "$tmp/out" || fail "no tp_good row in listing"
for m in tp_nodesc tp_badabi tp_initfail tp_misname tp_badkind; do
    grep "warning" "$tmp/err" | grep -q "$m" || fail "no warning for $m"
    grep -q "^$m " "$tmp/out" && fail "$m listed"
done
# Columns are aligned: KIND starts at the same offset in every row.
awk 'NR == 1 { col = index($0, "KIND") } NR > 1 && substr($0, col - 2, 2) != "  " { bad = 1 }
     END { exit bad }' "$tmp/out" || fail "columns not aligned"

# The environment variable is honoured too.
CRFPIPE_PLUGIN_PATH="/nonexistent:$moddir" "$CRFPIPE" plugins tp_good >"$tmp/out" 2>"$tmp/err" ||
    fail "CRFPIPE_PLUGIN_PATH not used"

# Describing one plugin: descriptor and parameters.
"$CRFPIPE" --plugin-path "$moddir" plugins tp_good >"$tmp/out" 2>"$tmp/err" ||
    fail "plugins tp_good failed"
has "$tmp/out" '^name: *tp_good$'
has "$tmp/out" '^kind: *tagger$'
has "$tmp/out" '^version: *1\.2$'
grep -Eq '^  label +string +O +label given to every token$' "$tmp/out" || fail "label row"
grep -Eq '^  count +int +3 +how many$' "$tmp/out" || fail "count row"
grep -Eq '^  rho1 +float +- +an l1 weight without default$' "$tmp/out" || fail "rho1 row"

# Failures: exit 1 and a message that says what went wrong.
"$CRFPIPE" plugins nosuchplugin >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "nosuchplugin exited $rc"
has "$tmp/err" "error: plugin 'nosuchplugin' not found"
[ -s "$tmp/out" ] && fail "nosuchplugin wrote to stdout"

"$CRFPIPE" --plugin-path "$moddir" plugins tp_badabi >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "tp_badabi did not fail"
has "$tmp/err" "tp_badabi.*built for ABI 43.0"

"$CRFPIPE" --plugin-path "$moddir" plugins tp_initfail >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "tp_initfail did not fail"
has "$tmp/err" "resource table missing"

"$CRFPIPE" plugins ../etc/passwd >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "invalid name did not fail"
has "$tmp/err" "not valid"

"$CRFPIPE" plugins a b >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "two names: expected usage error"

# The search path is printed in order.
"$CRFPIPE" --plugin-path /first plugins --path >"$tmp/out" 2>"$tmp/err" || fail "--path"
[ "$(head -n 1 "$tmp/out")" = /first ] || fail "--plugin-path not first"

[ $fails -eq 0 ]
