#!/bin/bash
# crfpipe beside Wapiti on CoNLL-2000 chunking, with the classic template
# (samples/chunking/chunking.tpl, which Wapiti reads as a pattern file):
# what a Wapiti user moving over sees.
#   - training: `wapiti train -p chunking.tpl` (its defaults: L-BFGS with
#     the elastic net, rho1 0.5, rho2 1e-4, 2 threads) and `crfpipe train`
#     with the same template behind `#!wapiti` (Wapiti's observations) and
#     Wapiti's penalty (both add rho1·|θ|₁ + rho2/2·|θ|²: --rho1 0.5 --rho2
#     1e-4), 2 threads: wall time, peak memory, active features, chunk F1
#     on test.txt;
#   - the Wapiti model imported (`crfpipe model import`, its time and
#     memory) and tagging test.txt: whether every token gets Wapiti's label,
#     and the tagging time (best of 3) and memory of `wapiti label` and
#     `crfpipe tag`;
#   - `wapiti label -s` and `-p -s` against the imported model's output in
#     Wapiti's format (--scores true --token-scores true --to wapiti): the
#     same lines, numbers to their last printed digit.
# Usage: bench/wapiti.sh DATA_DIR [WAPITI]
#   DATA_DIR holds conll2000/train.txt and test.txt (research use: read
#   there, never copied); WAPITI is the wapiti program (default: from PATH;
#   without it only crfpipe's row is measured).
# Run from the build tree (make bench-wapiti DATA=... WAPITI=...) or with
# CRFPIPE pointing to the crfpipe program.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
data=${1:?usage: bench/wapiti.sh DATA_DIR [WAPITI]}/conll2000
wapiti=${2:-$(command -v wapiti || true)}
crfpipe=${CRFPIPE:-./core/crfpipe}
[ -f "$data/train.txt" ] || { echo "no $data/train.txt" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crfpipe-bench-wapiti.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tpl=$here/samples/chunking/chunking.tpl
{ echo '#!wapiti'; cat "$tpl"; } >"$tmp/wapiti.tpl"

. "$(dirname "$0")/timing.sh"
f1() { "$crfpipe" eval "$1" 2>/dev/null | sed -n 's/^chunk F1: *//p'; }
active() { "$crfpipe" model info "$1" | sed -n 's/^active\t//p'; }

rows=() scored=()
timed cp-train "$crfpipe" train --template "$tmp/wapiti.tpl" --rho1 0.5 --rho2 1e-4 \
    --threads 2 --model "$tmp/cp.model" "$data/train.txt" 2>"$tmp/cp.log"
# the same objective in both programs: where each stopped
cp_obj=$(sed -n 's/^trained: .*objective \([^,]*\),.*/\1/p' "$tmp/cp.log")
best3 cp-tag "$crfpipe" tag --model "$tmp/cp.model" -o "$tmp/cp.out" "$data/test.txt"
rows+=("| crfpipe train, #!wapiti + chunking.tpl, --rho1 0.5 --rho2 1e-4 (objective $cp_obj) | $(wall cp-train) | $(rss cp-train) | $(active "$tmp/cp.model") | $(f1 "$tmp/cp.out") | $(wall cp-tag) | $(rss cp-tag) |")
if [ -n "$wapiti" ]; then
    timed w-train "$wapiti" train -t 2 -p "$tpl" "$data/train.txt" "$tmp/w.model" 2>"$tmp/w.log"
    best3 w-tag "$wapiti" label -m "$tmp/w.model" "$data/test.txt" "$tmp/w.out" 2>/dev/null
    timed import "$crfpipe" model import "$tmp/w.model" -o "$tmp/im.model" 2>/dev/null
    best3 im-tag "$crfpipe" tag --model "$tmp/im.model" -o "$tmp/im.out" "$data/test.txt"
    w_obj=$(sed -n 's/.*obj=\([0-9.e+-]*\).*/\1/p' "$tmp/w.log" | tail -n 1)
    rows+=("| wapiti train -p chunking.tpl (objective $w_obj), wapiti label | $(wall w-train) | $(rss w-train) | $(sed -n '1s/^#mdl#2#//p' "$tmp/w.model") | $(f1 "$tmp/w.out") | $(wall w-tag) | $(rss w-tag) |")
    rows+=("| the Wapiti model imported ($(wall import) s, $(rss import) MB), crfpipe tag | - | - | $(active "$tmp/im.model") | $(f1 "$tmp/im.out") | $(wall im-tag) | $(rss im-tag) |")
    same=$(same_last_field "$tmp/w.out" "$tmp/im.out")
    for dec in viterbi posterior; do
        [ $dec = viterbi ] && p= || p=-p
        "$wapiti" label -m "$tmp/w.model" $p -s "$data/test.txt" "$tmp/ws.out" 2>/dev/null
        "$crfpipe" tag --model "$tmp/im.model" --decode $dec --scores true --token-scores true \
            --to wapiti -o "$tmp/cs.out" "$data/test.txt" 2>/dev/null
        s=$(awk -v F="$tmp/ws.out" -f "$here/tests/same-but-rounding.awk" "$tmp/cs.out" || true)
        cmp -s "$tmp/ws.out" "$tmp/cs.out" && s="$s; byte for byte"
        scored+=("wapiti label $p -s against the imported model's output: $s")
    done
fi
print_rows "${rows[@]}"
[ -n "$wapiti" ] && echo "tokens labelled as wapiti label labels them, with the imported model: $same"
[ -n "$wapiti" ] && printf '%s\n' "${scored[@]}"
exit 0
