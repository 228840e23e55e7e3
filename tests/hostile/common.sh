# Sourced by the hostile-input tests: a scratch directory removed on exit,
# helpers that fail the test with a message, and `run`, which bounds every
# crfpipe call in time so that a regression fails instead of hanging.
set -u
: "${CRFPIPE:?CRFPIPE must name the crfpipe program}"
: "${top_srcdir:?top_srcdir must be set}"
work=$(mktemp -d "${TMPDIR:-/tmp}/crfp-hostile.XXXXXX") || exit 99
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 99

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# run SECONDS EXPECTED-STATUS PATTERN CRFPIPE-ARGS...: crfpipe must finish
# within SECONDS with EXPECTED-STATUS and print PATTERN (grep -E, "" for any)
# on stderr, which is kept in $work/err.
run() {
    secs=$1 want=$2 pattern=$3
    shift 3
    rc=0
    timeout "$secs" "$CRFPIPE" "$@" > "$work/out" 2> "$work/err" || rc=$?
    [ "$rc" = 124 ] && fail "crfpipe $*: still running after ${secs}s"
    [ "$rc" = "$want" ] || { cat "$work/err" >&2; fail "crfpipe $*: exit status $rc, expected $want"; }
    if [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$work/err"; then
        cat "$work/err" >&2
        fail "crfpipe $*: message lacks '$pattern'"
    fi
    return 0
}
