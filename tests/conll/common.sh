# Sourced by the conll tests: a scratch directory removed on exit, and
# helpers that fail the test with a message.
set -u
: "${CRFPIPE:?CRFPIPE must name the crfpipe program}"
: "${top_srcdir:?top_srcdir must be set}"
work=$(mktemp -d "${TMPDIR:-/tmp}/crfp-conll.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# convert ARGS... ; fails the test unless crfpipe exits 0
convert() {
    "$CRFPIPE" --quiet convert "$@" || fail "crfpipe convert $* exited $?"
}

# same_bytes EXPECTED ACTUAL WHAT
same_bytes() {
    cmp "$1" "$2" >&2 || fail "$3: output differs from $1"
}
