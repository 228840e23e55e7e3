#!/bin/sh
# CoNLL-2000 through the CLI, briefly (the full run is `make bench`):
# conversion, a short training, tagging, and chunk F1 from `crfpipe eval`.
. "$top_srcdir/tests/pipeline/common.sh"
data="${CRFP_SHARED_DATA:-}/conll2000"
[ -r "$data/train.txt" ] || { echo "no CoNLL-2000 data: skipped"; exit 77; }
head -n 20000 "$data/train.txt" | awk 'BEGIN{b=0} { print } END {}' >"$tmp/train.txt"
# cut at a sentence boundary
awk 'NF == 0 { last = NR } { line[NR] = $0 } END { for (i = 1; i <= last; i++) print line[i] }' \
    "$tmp/train.txt" >"$tmp/train2.txt"
"$CRFPIPE" --quiet train --template "$top_srcdir/samples/chunking/chunking.tpl" \
    --columns word,pos,chunk --max-iter 40 --model "$tmp/c.model" "$tmp/train2.txt" || fail "train"
"$CRFPIPE" tag --model "$tmp/c.model" --columns word,pos,chunk -o "$tmp/test.out" "$data/test.txt" \
    || fail "tag"
"$CRFPIPE" eval "$tmp/test.out" >"$tmp/eval.txt" || fail "eval"
f1=$(sed -n 's/^chunk F1: //p' "$tmp/eval.txt")
echo "chunk F1 after 40 iterations on 20k lines: $f1"
awk -v f="$f1" 'BEGIN { exit !(f >= 80) }' || fail "chunk F1 $f1 below 80"
finish
