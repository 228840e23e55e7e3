#!/bin/bash
# crfpipe beside CRF++ 0.59 on CoNLL-2000 chunking, with the classic
# template (samples/chunking/chunking.tpl, which crf_learn reads as it is):
# what a CRF++ user moving over sees.
#   - the model: crf_learn -p 2 (its defaults: L2, C = 1) unless MODEL is
#     given (a binary model crf_learn wrote with that template);
#   - `crfpipe model import` of it: time and memory;
#   - tagging test.txt (best of 3): `crf_test` against `crfpipe tag`, their
#     time, memory and chunk F1, and whether every token gets crf_test's
#     label;
#   - crf_test's verbose output against `crfpipe tag --to crfpp`: -v1
#     (--posteriors, verbose=1) and -v2 (--marginals N --marginals-order
#     label, verbose=2), line by line, numbers to their last printed digit
#     (CRF++ sums in single precision: some end 1e-6 apart).
# Usage: bench/crfpp.sh DATA_DIR CRFPP_BIN_DIR [MODEL]
#   DATA_DIR holds conll2000/train.txt and test.txt (research use: read
#   there, never copied); CRFPP_BIN_DIR holds crf_learn and crf_test.
# Run from the build tree (make bench-crfpp DATA=... CRFPP=... [CRFPP_MODEL=...])
# or with CRFPIPE pointing to the crfpipe program.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
data=${1:?usage: bench/crfpp.sh DATA_DIR CRFPP_BIN_DIR [MODEL]}/conll2000
bin=${2:?usage: bench/crfpp.sh DATA_DIR CRFPP_BIN_DIR [MODEL]}
model=${3:-}
crfpipe=${CRFPIPE:-./core/crfpipe}
[ -f "$data/test.txt" ] || { echo "no $data/test.txt" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crfpipe-bench-crfpp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/timing.sh"
f1() { "$crfpipe" eval "$1" 2>/dev/null | sed -n 's/^chunk F1: *//p'; }

if [ -z "$model" ]; then
    model=$tmp/chunk.crfpp
    timed learn "$bin/crf_learn" -p 2 "$here/samples/chunking/chunking.tpl" "$data/train.txt" \
        "$model" >"$tmp/learn.log"
    echo "crf_learn -p 2 chunking.tpl: $(wall learn) s, $(rss learn) MB"
fi
timed import "$crfpipe" model import "$model" -o "$tmp/m.model" 2>/dev/null
echo "model import: $(wall import) s, $(rss import) MB ($(stat -c %s "$model") bytes)"
best3 ct "$bin/crf_test" -m "$model" "$data/test.txt" -o "$tmp/ct.out"
best3 cp "$crfpipe" tag --model "$tmp/m.model" --to crfpp -o "$tmp/cp.out" "$data/test.txt"
echo "| run | tagging s | tagging MB | chunk F1 |"
echo "|---|---|---|---|"
echo "| crf_test | $(wall ct) | $(rss ct) | $(f1 "$tmp/ct.out") |"
echo "| crfpipe tag --to crfpp, the model imported | $(wall cp) | $(rss cp) | $(f1 "$tmp/cp.out") |"
echo "tokens labelled as crf_test labels them: $(same_last_field "$tmp/ct.out" "$tmp/cp.out")"
cmp -s "$tmp/ct.out" "$tmp/cp.out" && echo "crf_test's output, byte for byte"
"$bin/crf_test" -v1 -m "$model" "$data/test.txt" -o "$tmp/ct1.out"
"$crfpipe" tag --model "$tmp/m.model" --posteriors --to crfpp --writer-param verbose=1 \
    -o "$tmp/cp1.out" "$data/test.txt"
echo "-v1: $(awk -v F="$tmp/ct1.out" -f "$here/tests/same-but-rounding.awk" "$tmp/cp1.out")"
"$bin/crf_test" -v2 -m "$model" "$data/test.txt" -o "$tmp/ct2.out"
"$crfpipe" tag --model "$tmp/m.model" --posteriors --marginals 1000 --marginals-order label \
    --to crfpp --writer-param verbose=2 -o "$tmp/cp2.out" "$data/test.txt"
echo "-v2: $(awk -v F="$tmp/ct2.out" -f "$here/tests/same-but-rounding.awk" "$tmp/cp2.out")"
exit 0
