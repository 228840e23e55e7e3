#!/bin/bash
# CoNLL-2000 chunking end to end, from the data directory (the corpus is
# research-use only and never copied here):
#   samples/chunking/run.sh DATA [extra options for the chunker's training]
# Trains the chunker (chunking.tpl, word and POS columns) and a Penn
# Treebank POS tagger (samples/pos/pos.tpl on the same file's POS column),
# scores the chunker on test.txt with the corpus's POS tags and with the
# tagger's, and chunks a raw sentence with annotate.xml.
set -euo pipefail
data=${1:?usage: run.sh DATA_DIR [train options]}
shift
cd "$(dirname "$0")/../.."
CRFPIPE=${CRFPIPE:-build/core/crfpipe}
out=samples/out
mkdir -p "$out"
c=$data/conll2000
"$CRFPIPE" train --template samples/chunking/chunking.tpl --columns word,pos,chunk \
    --model samples/chunking/chunking.model "$@" "$c/train.txt"
# the tagger reads the word as `form`, the column name of samples/pos/pos.tpl
"$CRFPIPE" train --template samples/pos/pos.tpl --columns form,pos,chunk --label pos --rho1 0.05 \
    --model samples/chunking/ptb-pos.model "$c/train.txt"
echo "== chunks, test.txt with its own POS tags"
"$CRFPIPE" tag --model samples/chunking/chunking.model --columns word,pos,chunk \
    -o "$out/chunking-test.txt" "$c/test.txt"
"$CRFPIPE" eval "$out/chunking-test.txt" | grep -E 'token accuracy|chunk'
echo "== POS tagger, test.txt"
"$CRFPIPE" eval --model samples/chunking/ptb-pos.model --columns form,pos,chunk "$c/test.txt" |
    grep 'token accuracy'
echo "== chunks, test.txt with the tagger's POS tags (both models in one pipeline)"
cat >"$out/chunk-chain.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<pipeline xmlns="urn:crfpipe:pipeline:1" name="chunk-chain">
  <stage plugin="conll_reader"><param name="columns" value="word,gold-pos,chunk"/></stage>
  <stage plugin="viterbi"><param name="model" value="$PWD/samples/chunking/ptb-pos.model"/>
    <param name="input-columns" value="form=word"/><param name="output" value="pos"/></stage>
  <stage plugin="viterbi"><param name="model" value="$PWD/samples/chunking/chunking.model"/>
    <param name="input-columns" value="word,pos"/></stage>
  <stage plugin="conll_writer"><param name="columns" value="word,chunk,predicted"/></stage>
</pipeline>
XML
"$CRFPIPE" run "$out/chunk-chain.xml" -i "$c/test.txt" -o "$out/chunking-test-tagged-pos.txt"
"$CRFPIPE" eval "$out/chunking-test-tagged-pos.txt" | grep -E 'token accuracy|chunk'
echo "== from raw text"
echo "He reckons the current account deficit will narrow to only 1.8 billion in September." |
    "$CRFPIPE" run samples/chunking/annotate.xml -o "$out/chunking-example.xml"
grep -A1 'type="Chunk"' "$out/chunking-example.xml" | grep -o 'start="[0-9]*" end="[0-9]*"\|<f name="type">[A-Z]*' |
    paste - - | head -20
