# Shared by the pipeline test scripts (sourced).
set -eu
: "${CRFPIPE:?run through make check}"
: "${top_srcdir:?run through make check}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crfpipe-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# expect_fail PATTERN CMD...: the command must exit non-zero, not crash
# (exit status < 128), and print PATTERN on stderr.
expect_fail() {
    local pat=$1 rc=0
    shift
    "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
    if [ "$rc" -eq 0 ]; then fail "succeeded but should fail: $*"; return; fi
    if [ "$rc" -ge 128 ]; then fail "crashed (status $rc): $*"; cat "$tmp/err" >&2; return; fi
    if ! grep -q -- "$pat" "$tmp/err"; then
        fail "no '$pat' in the error of: $*"; cat "$tmp/err" >&2
    fi
}
finish() {
    if [ "$fails" -gt 0 ]; then echo "$fails failure(s)" >&2; exit 1; fi
    exit 0
}
# per_sentence XML FEATURE COLUMNS FIELDS: crfpipe's output of one run as
# XML and as columns, side by side: for each sentence of the column file,
# "P" and the first float of the Sentence feature FEATURE in the XML, then
# for each token "T" and its awk FIELDS (e.g. '$NF, $(NF - 2)').
per_sentence() {
    awk -v f="name=\"$2\"" 'index($0, f) { on = 1; next }
        on && /<v type="float">/ { sub(/.*<v type="float">/, ""); sub(/<.*/, ""); print; on = 0 }' \
        "$1" >"$tmp/per_sentence"
    awk -v sp="$tmp/per_sentence" 'BEGIN { start = 1 }
        NF == 0 { start = 1; next }
        start { getline p <sp; print "P", p; start = 0 }
        { print "T", '"$4"' }' "$3"
}
# same_but_rounding OURS THEIRS: the two files hold the same lines but
# that a number (D.DDD...) may differ by 2e-6, the last of six printed
# decimals: CRF++ sums a token's weights in single precision.
same_but_rounding() {
    awk -v F="$2" -f "$top_srcdir/tests/same-but-rounding.awk" "$1"
}
# model_observations MODEL: the observations of a crfpipe model that carry
# a weight, sorted, one a line.
model_observations() {
    "$CRFPIPE" model dump "$1" | awk -F'\t' '($1 == "U" || $1 == "B") && NF >= 4 { print $2 }' |
        LC_ALL=C sort -u
}
# wapiti_observations MODEL.wap: every observation a Wapiti model lists,
# sorted, one a line.
wapiti_observations() {
    awk '/^#qrk#/ { q++; next } q == 2 && /^[0-9]+=/ { exit }
         q == 2 { sub(/^[0-9]+:/, ""); sub(/,$/, ""); print }' "$1" | LC_ALL=C sort -u
}
