#!/bin/bash
# crfpipe beside Wapiti on CoNLL-2000 chunking given as Wapiti's data with
# its observations (what `wapiti train` reads without a pattern file): the
# observations of samples/chunking/chunking.tpl written out by awk, each
# field "u..." (unigram) and a bare "b" (the label bigram) per token.
#   - training: `wapiti train` (its defaults: L-BFGS with the elastic net,
#     rho1 0.5, rho2 1e-4, 2 threads) and `crfpipe train --format wapiti
#     --features attributes --feature-param bigram=wapiti` with the same
#     penalty, 2 threads: wall time, peak memory, active features, objective,
#     chunk F1 on test.txt;
#   - Wapiti's model imported and tagging test.txt: whether every token gets
#     Wapiti's label, and the tagging time (best of 3) and memory of
#     `wapiti label` and `crfpipe tag`.
# Usage: bench/wapiti-data.sh DATA_DIR [WAPITI]
#   DATA_DIR holds conll2000/train.txt and test.txt (research use: read
#   there, never copied); WAPITI is the wapiti program (default: from PATH;
#   without it only crfpipe's row is measured).
set -euo pipefail
data=${1:?usage: bench/wapiti-data.sh DATA_DIR [WAPITI]}/conll2000
wapiti=${2:-$(command -v wapiti || true)}
crfpipe=${CRFPIPE:-./core/crfpipe}
[ -f "$data/train.txt" ] || { echo "no $data/train.txt" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crfpipe-bench-wdata.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# word POS chunk -> chunking.tpl's observations (U00-U22 and B), chunk last
observe() {
    LC_ALL=C awk '
    function emit(   i, j, w, p, s) {
        for (i = 1; i <= n; i++) {
            for (j = -2; j <= 2; j++) { w[j] = i + j < 1 ? "_B" (i + j - 1) : i + j > n ? "_B+" (i + j - n) : W[i + j]
                                        p[j] = i + j < 1 ? "_B" (i + j - 1) : i + j > n ? "_B+" (i + j - n) : P[i + j] }
            s = "u00:" w[-2] " u01:" w[-1] " u02:" w[0] " u03:" w[1] " u04:" w[2]
            s = s " u05:" w[-1] "/" w[0] " u06:" w[0] "/" w[1]
            s = s " u10:" p[-2] " u11:" p[-1] " u12:" p[0] " u13:" p[1] " u14:" p[2]
            s = s " u15:" p[-2] "/" p[-1] " u16:" p[-1] "/" p[0] " u17:" p[0] "/" p[1] " u18:" p[1] "/" p[2]
            s = s " u20:" p[-2] "/" p[-1] "/" p[0] " u21:" p[-1] "/" p[0] "/" p[1] " u22:" p[0] "/" p[1] "/" p[2]
            print s " b " C[i]
        }
        print ""
        n = 0
    }
    NF == 0 { if (n) emit(); next }
    { n++; W[n] = $1; P[n] = $2; C[n] = $3 }
    END { if (n) emit() }' "$1"
}
observe "$data/train.txt" >"$tmp/train.txt"
observe "$data/test.txt" >"$tmp/test.txt"

. "$(dirname "$0")/timing.sh"
# chunk F1 of Wapiti-format output: the gold is the line's last field but
# one, the prediction its last
f1() {
    awk 'NF { print $(NF - 1), $NF; next } { print "" }' "$1" >"$1.cols"
    "$crfpipe" eval --format conll --label word --guess label "$1.cols" 2>/dev/null |
        sed -n 's/^chunk F1: *//p'
}
active() { "$crfpipe" model info "$1" | sed -n 's/^active\t//p'; }

rows=()
timed cp-train "$crfpipe" train --format wapiti --features attributes \
    --feature-param bigram=wapiti --rho1 0.5 --rho2 1e-4 --threads 2 --model "$tmp/cp.model" \
    "$tmp/train.txt" 2>"$tmp/cp.log"
cp_obj=$(sed -n 's/^trained: .*objective \([^,]*\),.*/\1/p' "$tmp/cp.log")
best3 cp-tag "$crfpipe" tag --model "$tmp/cp.model" --format wapiti -o "$tmp/cp.out" "$tmp/test.txt"
rows+=("| crfpipe train --format wapiti --features attributes --feature-param bigram=wapiti --rho1 0.5 --rho2 1e-4 (objective $cp_obj) | $(wall cp-train) | $(rss cp-train) | $(active "$tmp/cp.model") | $(f1 "$tmp/cp.out") | $(wall cp-tag) | $(rss cp-tag) |")
if [ -n "$wapiti" ]; then
    timed w-train "$wapiti" train -t 2 "$tmp/train.txt" "$tmp/w.model" 2>"$tmp/w.log"
    best3 w-tag "$wapiti" label -c -m "$tmp/w.model" "$tmp/test.txt" "$tmp/w.out" 2>/dev/null
    timed import "$crfpipe" model import "$tmp/w.model" -o "$tmp/im.model" 2>/dev/null
    best3 im-tag "$crfpipe" tag --model "$tmp/im.model" --format wapiti -o "$tmp/im.out" \
        "$tmp/test.txt"
    w_obj=$(sed -n 's/.*obj=\([0-9.e+-]*\).*/\1/p' "$tmp/w.log" | tail -n 1)
    rows+=("| wapiti train (objective $w_obj), wapiti label -c | $(wall w-train) | $(rss w-train) | $(sed -n '1s/^#mdl#2#//p' "$tmp/w.model") | $(f1 "$tmp/w.out") | $(wall w-tag) | $(rss w-tag) |")
    rows+=("| the Wapiti model imported ($(wall import) s, $(rss import) MB), crfpipe tag --format wapiti | - | - | $(active "$tmp/im.model") | $(f1 "$tmp/im.out") | $(wall im-tag) | $(rss im-tag) |")
    same=$(same_last_field "$tmp/w.out" "$tmp/im.out")
fi
print_rows "${rows[@]}"
[ -n "$wapiti" ] && echo "tokens labelled as wapiti label labels them, with the imported model: $same"
exit 0
