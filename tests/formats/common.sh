# Sourced by the tests/formats scripts: scratch directory, failure counting,
# and the check that `crfpipe tag` then `crfpipe eval` scores what
# `crfpipe eval --model` scores.
set -u
: "${CRFPIPE:?run through make check}"
: "${top_srcdir:?run through make check}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crfp-formats.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
finish() {
    if [ "$fails" -gt 0 ]; then echo "$fails failure(s)" >&2; exit 1; fi
    exit 0
}
# expect_fail PATTERN CMD...: exit status 1 and PATTERN on stderr.
expect_fail() {
    local pat=$1 rc=0
    shift
    "$@" >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
    if [ "$rc" -ne 1 ]; then fail "exit status $rc, expected 1: $*"; cat "$tmp/stderr" >&2; return; fi
    if ! grep -q -- "$pat" "$tmp/stderr"; then
        fail "no '$pat' in the error of: $*"; cat "$tmp/stderr" >&2
    fi
}
# train MODEL TEMPLATE ARGS... (quiet, few iterations: the tests compare
# scores, they do not need good ones)
train() {
    local model=$1 tpl=$2
    shift 2
    "$CRFPIPE" --quiet train --template "$tpl" --max-iter 15 --threads 2 --model "$model" "$@" \
        || fail "train $model $*"
}
# accuracy REPORT: the token accuracy line of an eval report
accuracy() { grep '^token accuracy' "$1"; }
# tag_then_eval MODEL INPUT OUTPUT: tag INPUT into OUTPUT with no option but
# --model, score OUTPUT with no option at all, and require the same report
# as `eval --model MODEL INPUT`, with a non-zero accuracy.
tag_then_eval() {
    local model=$1 in=$2 out=$3
    "$CRFPIPE" --quiet tag --model "$model" "$in" > "$out" || { fail "tag $in"; return; }
    "$CRFPIPE" --quiet eval "$out" > "$tmp/r1" || { fail "eval $out"; return; }
    "$CRFPIPE" --quiet eval --model "$model" "$in" > "$tmp/r2" || { fail "eval --model $in"; return; }
    cmp -s "$tmp/r1" "$tmp/r2" || { fail "$in: tag+eval and eval --model differ"; diff "$tmp/r1" "$tmp/r2" >&2; }
    accuracy "$tmp/r1" | grep -q ' 0\.00%' && fail "$in: accuracy 0.00 %"
    accuracy "$tmp/r1" | grep -q 'token accuracy' || fail "$in: no accuracy in the report"
    echo "$in: $(accuracy "$tmp/r1")"
}
