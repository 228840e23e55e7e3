#!/bin/sh
# Plugin search safety: modules in world-writable directories, world-writable
# modules and modules owned by another user are not opened (their
# constructors would run as whoever runs crfpipe); only files named after
# the plugin (NAME.so, or NAME.la pointing at NAME.so) are opened; a file
# that is not a shared object says why it cannot be loaded.
set -u
: "${CRFPIPE:?}" "${top_builddir:?}"
so="$top_builddir/tests/host/.libs/tp_good.so"
[ -f "$so" ] || { echo "SKIP: $so not built"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crfp-trust.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
has() { grep -q -- "$2" "$1" || { cat "$1" >&2; fail "$3: stderr lacks '$2'"; }; }
# plugins ARGS: run `crfpipe plugins` with the given search directory first.
plugins() { dir=$1; shift; "$CRFPIPE" --plugin-path "$dir" plugins "$@" >"$tmp/out" 2>"$tmp/err"; }

# The control: a private directory with a copy of the module works.
mkdir "$tmp/ok"
cp "$so" "$tmp/ok/tp_good.so"
plugins "$tmp/ok" tp_good || { cat "$tmp/err" >&2; fail "tp_good from a private directory"; }

# A world-writable directory (even with the sticky bit, like /tmp) is
# skipped with a warning, by name and in the listing.
for mode in 0777 1777; do
    d="$tmp/ww$mode"
    mkdir "$d"
    cp "$so" "$d/tp_good.so"
    chmod "$mode" "$d"
    plugins "$d" tp_good && fail "mode $mode directory: tp_good was loaded"
    has "$tmp/err" "warning: ignoring plugin directory $d: it is world-writable" "mode $mode dir"
    has "$tmp/err" "plugin 'tp_good' not found" "mode $mode dir"
    plugins "$d" || fail "mode $mode directory: the listing failed"
    grep -q '^tp_good ' "$tmp/out" && fail "mode $mode directory: tp_good listed"
    [ "$(grep -c "ignoring plugin directory $d" "$tmp/err")" = 1 ] ||
        fail "mode $mode directory: not warned exactly once"
done

# A world-writable module in a private directory.
mkdir "$tmp/wwfile"
cp "$so" "$tmp/wwfile/tp_good.so"
chmod 0666 "$tmp/wwfile/tp_good.so"
plugins "$tmp/wwfile" tp_good && fail "world-writable module was loaded"
has "$tmp/err" "ignoring plugin module $tmp/wwfile/tp_good.so: it is world-writable" "ww module"

# The libtool archive counts as the module: a world-writable .la is not
# followed to its shared object.
mkdir "$tmp/wwla" "$tmp/wwla/.libs"
cp "$so" "$tmp/wwla/.libs/tp_good.so"
printf "# tp_good.la - a libtool library file\ndlname='tp_good.so'\ninstalled=no\n" \
    >"$tmp/wwla/tp_good.la"
plugins "$tmp/wwla" tp_good || { cat "$tmp/err" >&2; fail "tp_good through a .la in .libs"; }
chmod 0666 "$tmp/wwla/tp_good.la"
plugins "$tmp/wwla" tp_good && fail "world-writable .la was followed"
has "$tmp/err" "ignoring plugin module $tmp/wwla/tp_good.la: it is world-writable" "ww .la"

# Ownership: another user than root or the current one (root only: chown).
if [ "$(id -u)" = 0 ]; then
    mkdir "$tmp/theirs"
    cp "$so" "$tmp/theirs/tp_good.so"
    chown 12345 "$tmp/theirs/tp_good.so"
    plugins "$tmp/theirs" tp_good && fail "a module owned by uid 12345 was loaded"
    has "$tmp/err" "ignoring plugin module $tmp/theirs/tp_good.so: it is owned by uid 12345" \
        "foreign module"
    chown 0 "$tmp/theirs/tp_good.so"
    chown 12345 "$tmp/theirs"
    plugins "$tmp/theirs" tp_good && fail "a directory owned by uid 12345 was searched"
    has "$tmp/err" "ignoring plugin directory $tmp/theirs: it is owned by uid 12345" \
        "foreign directory"
    chown 0 "$tmp/theirs"
    plugins "$tmp/theirs" tp_good || fail "root's module in root's directory"
else
    echo "not root: ownership checks skipped"
fi

# Only files named after the plugin: a .la whose dlname points elsewhere is
# refused, and one that is no libtool archive at all says so.
mkdir "$tmp/la"
cp "$so" "$tmp/la/other.so"
printf "# tp_good.la - a libtool library file\ndlname='other.so'\ninstalled=yes\n" \
    >"$tmp/la/tp_good.la"
plugins "$tmp/la" tp_good && fail "a .la naming other.so was followed"
has "$tmp/err" "refusing dlname 'other.so'" ".la pointing elsewhere"
printf "dlname='tp_good.so'\n" >"$tmp/la/tp_good.la"
plugins "$tmp/la" tp_good && fail "a .la without the libtool header was followed"
has "$tmp/err" "not a libtool module archive" "not a libtool archive"

# A file that is not a shared object: libltdl's reason, not "file not found".
mkdir "$tmp/junk"
printf 'this is not an ELF file\n' >"$tmp/junk/tp_junk.so"
plugins "$tmp/junk" tp_junk && fail "garbage module loaded"
has "$tmp/err" "tp_junk.so: not a loadable module: .*\(file too short\|invalid ELF header\)" \
    "garbage module"
grep -q "file not found" "$tmp/err" && fail "garbage module reported as 'file not found'"
# The same garbage first on the path under a reader's name hides the good
# reader: the unknown format says which module could not be loaded.
cp "$tmp/junk/tp_junk.so" "$tmp/junk/conll_reader.so"
printf 'a\tX\n\n' >"$tmp/one.conll"
"$CRFPIPE" --plugin-path "$tmp/junk" convert --from conll --to xml "$tmp/one.conll" \
    >"$tmp/out" 2>"$tmp/err" && fail "a broken conll_reader.so was not noticed"
has "$tmp/err" "unknown input format 'conll'.*could not be loaded.*conll_reader.so: not a loadable module" \
    "a format hidden by a broken module"
rm -f "$tmp/junk/conll_reader.so"

[ $fails -eq 0 ]
