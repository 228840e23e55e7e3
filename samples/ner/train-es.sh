#!/bin/bash
# Spanish entities, CoNLL-2002 (research use only: read from the data
# directory, never copied here):
#   samples/ner/train-es.sh DATA
# Trains es-pos.model (samples/pos/pos.tpl on the corpus's EAGLES POS
# column) and es-ner.model (es.tpl: words and POS), both stopped on testa;
# scores the entity tagger on testb with the corpus's POS tags and with the
# tagger's, and annotates a raw Spanish sentence with annotate-es.xml.
# Labels are trained as BIOES (bioes.awk) and scored as spans.
set -euo pipefail
data=${1:?usage: train-es.sh DATA_DIR}
cd "$(dirname "$0")/../.."
CRFPIPE=${CRFPIPE:-build/core/crfpipe}
out=samples/out
mkdir -p "$out"
d=$data/conll2002_es
for f in esp.train esp.testa; do
    awk -f samples/ner/bioes.awk "$d/$f" >"$out/$f.bioes"
done
"$CRFPIPE" train --template samples/pos/pos.tpl --columns form,pos,ne --label pos --rho1 0.05 \
    --dev "$d/esp.testa" --dev-patience 0 --model samples/ner/es-pos.model "$d/esp.train"
"$CRFPIPE" train --template samples/ner/es.tpl --columns word,pos,ne --label ne \
    --dev "$out/esp.testa.bioes" --dev-patience 0 --model samples/ner/es-ner.model \
    "$out/esp.train.bioes"
echo "== POS tagger, testb"
"$CRFPIPE" eval --model samples/ner/es-pos.model --columns form,pos,ne "$d/esp.testb" |
    grep 'token accuracy'
echo "== entities, testb with the corpus's POS tags"
# predictions back to BIO (S- -> B-, E- -> I-) to be scored against the
# corpus as distributed: the spans, and so the F1, are the same; token
# accuracy then compares like with like
tobio() { awk 'NF { sub(/^S-/, "B-", $NF); sub(/^E-/, "I-", $NF) } { print }' "$1" >"$2"; }
"$CRFPIPE" tag --model samples/ner/es-ner.model --columns word,pos,ne -o "$out/esp.testb.bioes-tagged" \
    "$d/esp.testb"
tobio "$out/esp.testb.bioes-tagged" "$out/esp.testb.tagged"
"$CRFPIPE" eval "$out/esp.testb.tagged" | grep -E 'chunk|FB1' | head -2
echo "== entities, testb with the tagger's POS tags (both models in one pipeline)"
cat >"$out/es-chain.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<pipeline xmlns="urn:crfpipe:pipeline:1" name="es-chain">
  <stage plugin="conll_reader"><param name="columns" value="word,gold-pos,ne"/></stage>
  <stage plugin="viterbi"><param name="model" value="$PWD/samples/ner/es-pos.model"/>
    <param name="input-columns" value="form=word"/><param name="output" value="pos"/></stage>
  <stage plugin="viterbi"><param name="model" value="$PWD/samples/ner/es-ner.model"/>
    <param name="input-columns" value="word,pos"/></stage>
  <stage plugin="conll_writer"><param name="columns" value="word,ne,predicted"/></stage>
</pipeline>
XML
"$CRFPIPE" run "$out/es-chain.xml" -i "$d/esp.testb" -o "$out/esp.testb.chain-bioes"
tobio "$out/esp.testb.chain-bioes" "$out/esp.testb.chain"
"$CRFPIPE" eval "$out/esp.testb.chain" | grep -E 'chunk|FB1' | head -2
echo "== from raw text (GATE XML)"
echo "El presidente de Telefónica, César Alierta, visitó ayer la sede de la ONU en Nueva York." |
    "$CRFPIPE" run samples/ner/annotate-es.xml -o "$out/es-example.gate"
grep -c 'Type="Entity"' "$out/es-example.gate" | sed 's/^/Entity annotations: /'
