#!/bin/bash
# Spanish entities, CoNLL-2002 (research use only: read from the data
# directory, never copied here):
#   samples/ner/train-es.sh DATA
# Trains es-pos.model (samples/pos/pos.tpl on the corpus's EAGLES POS
# column) and the two-pass entity tagger, both stopped on testa:
#   es.tagdict     the entity labels of every word of train (tagdict_build)
#   es-ner1.model  first pass, es.tpl (words, affixes, shapes, POS, what
#                  the tag dictionary says about the word and its neighbours)
#   es-ner.model   second pass, es2.tpl: es.tpl plus what the first pass
#                  said about the other occurrences of each word and entity
#                  string in the corpus (plugin majority, read as one
#                  document); trained on first-pass labels of train made
#                  by 5-fold jackknifing, so that they are as wrong as on
#                  new text
# Scores both passes on testb with the corpus's POS tags and the two-pass
# chain with the tagger's, and annotates a raw Spanish sentence with
# annotate-es.xml.  Labels are trained as BIOES (bioes.awk), scored as spans.
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
# the tag dictionary of train (its features jackknifed over 10 runs of
# sentences on train itself), looked up on testa: columns amb, amblc, ambtop
cat >"$out/es-tdbuild.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<pipeline xmlns="urn:crfpipe:pipeline:1" name="es-tagdict-build">
  <stage plugin="conll_reader"><param name="columns" value="word,pos,ne"/>
    <param name="docstart" value="false"/><param name="batch-bytes" value="0"/></stage>
  <stage plugin="tagdict_build"><param name="dict" value="$PWD/samples/ner/es.tagdict"/>
    <param name="label" value="ne"/></stage>
  <stage plugin="conll_writer"><param name="columns" value="word,pos,amb,amblc,ambtop,ne"/></stage>
</pipeline>
XML
sed -e 's/tagdict_build/tagdict/g' -e 's/<param name="label" value="ne"\/>//' \
    -e 's/<param name="docstart" value="false"\/><param name="batch-bytes" value="0"\/>//' \
    "$out/es-tdbuild.xml" >"$out/es-tdlookup.xml"
"$CRFPIPE" run "$out/es-tdbuild.xml" -i "$out/esp.train.bioes" -o "$out/esp.train.td"
"$CRFPIPE" run "$out/es-tdlookup.xml" -i "$out/esp.testa.bioes" -o "$out/esp.testa.td"
cols=word,pos,amb,amblc,ambtop
# the first pass; pipelines that add its labels (column ne1) to a CoNLL
# file, and the majority features to such a file read as one document (the
# scope of the majority votes is the whole corpus)
"$CRFPIPE" train --template samples/ner/es.tpl --columns $cols,ne --label ne \
    --dev "$out/esp.testa.td" --dev-patience 0 --model samples/ner/es-ner1.model \
    "$out/esp.train.td"
tag1() {   # tag1 MODEL IN OUT
    cat >"$out/es-tag1.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<pipeline xmlns="urn:crfpipe:pipeline:1" name="es-first-pass">
  <stage plugin="conll_reader"><param name="columns" value="$cols,ne"/></stage>
  <stage plugin="viterbi"><param name="model" value="$PWD/$1"/><param name="output" value="ne1"/></stage>
  <stage plugin="conll_writer"><param name="columns" value="$cols,ne1,ne"/></stage>
</pipeline>
XML
    "$CRFPIPE" run "$out/es-tag1.xml" -i "$2" -o "$3"
}
majority() {   # majority IN OUT
    cat >"$out/es-maj.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<pipeline xmlns="urn:crfpipe:pipeline:1" name="es-majority">
  <stage plugin="conll_reader"><param name="columns" value="$cols,ne1,ne"/>
    <param name="docstart" value="false"/><param name="batch-bytes" value="0"/></stage>
  <stage plugin="majority"><param name="input" value="ne1"/></stage>
  <stage plugin="conll_writer"><param name="columns" value="$cols,ne1,maj,majne,majspan,ne"/></stage>
</pipeline>
XML
    "$CRFPIPE" run "$out/es-maj.xml" -i "$1" -o "$2"
}
# jackknife: five parts of consecutive sentences, each tagged by a first
# pass trained on the other four; the votes then run over all of train
n=$(awk 'BEGIN { RS = "" } END { print NR }' "$out/esp.train.td")
: >"$out/esp.train.ne1"
for k in 0 1 2 3 4; do
    for part in held rest; do
        awk -v k=$k -v n="$n" -v part=$part 'BEGIN { RS = ""; ORS = "\n\n" }
            { f = int((NR - 1) * 5 / n); if ((f == k) == (part == "held")) print }' \
            "$out/esp.train.td" >"$out/esp.train.$part$k"
    done
    echo "== jackknife $((k + 1))/5"
    "$CRFPIPE" -q train --template samples/ner/es.tpl --columns $cols,ne --label ne \
        --model "$out/es-ner1-f$k.model" "$out/esp.train.rest$k"
    tag1 "$out/es-ner1-f$k.model" "$out/esp.train.held$k" "$out/esp.train.ne1-$k"
    cat "$out/esp.train.ne1-$k" >>"$out/esp.train.ne1"
done
majority "$out/esp.train.ne1" "$out/esp.train.maj"
tag1 samples/ner/es-ner1.model "$out/esp.testa.td" "$out/esp.testa.ne1"
majority "$out/esp.testa.ne1" "$out/esp.testa.maj"
"$CRFPIPE" train --template samples/ner/es2.tpl --columns $cols,ne1,maj,majne,majspan,ne \
    --label ne --dev "$out/esp.testa.maj" --dev-patience 0 --model samples/ner/es-ner.model \
    "$out/esp.train.maj"
echo "== entities, testa (dev): first pass, both passes"
awk 'NF { print $1, $7, $6; next } { print }' "$out/esp.testa.ne1" >"$out/esp.testa.tagged1"
"$CRFPIPE" eval "$out/esp.testa.tagged1" | grep FB1 | head -1
"$CRFPIPE" tag --model samples/ner/es-ner.model --columns $cols,ne1,maj,majne,majspan,ne \
    -o "$out/esp.testa.tagged" "$out/esp.testa.maj"
"$CRFPIPE" eval "$out/esp.testa.tagged" | grep FB1 | head -1
echo "== POS tagger, testb"
"$CRFPIPE" eval --model samples/ner/es-pos.model --columns form,pos,ne "$d/esp.testb" |
    grep 'token accuracy'
# predictions back to BIO (S- -> B-, E- -> I-) to be scored against the
# corpus as distributed: the spans, and so the F1, are the same; token
# accuracy then compares like with like
tobio() { awk 'NF { sub(/^S-/, "B-", $NF); sub(/^E-/, "I-", $NF) } { print }' "$1" >"$2"; }
"$CRFPIPE" run "$out/es-tdlookup.xml" -i "$d/esp.testb" -o "$out/esp.testb.td"
echo "== entities, testb with the corpus's POS tags, first pass alone"
tag1 samples/ner/es-ner1.model "$out/esp.testb.td" "$out/esp.testb.ne1"
awk 'NF { print $1, $7, $6; next } { print }' "$out/esp.testb.ne1" >"$out/esp.testb.bioes-tagged1"
tobio "$out/esp.testb.bioes-tagged1" "$out/esp.testb.tagged1"
"$CRFPIPE" eval "$out/esp.testb.tagged1" | grep -E 'chunk|FB1' | head -2
chain() {   # chain OUT POS-STAGE: both passes in one pipeline, testb read as one document
    cat >"$out/es-chain.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<pipeline xmlns="urn:crfpipe:pipeline:1" name="es-chain">
  <stage plugin="conll_reader"><param name="columns" value="word,$3,ne"/>
    <param name="docstart" value="false"/><param name="batch-bytes" value="0"/></stage>
  $2
  <stage plugin="tagdict"><param name="dict" value="$PWD/samples/ner/es.tagdict"/></stage>
  <stage plugin="viterbi"><param name="model" value="$PWD/samples/ner/es-ner1.model"/>
    <param name="input-columns" value="$cols"/><param name="output" value="ne1"/></stage>
  <stage plugin="majority"><param name="input" value="ne1"/></stage>
  <stage plugin="viterbi"><param name="model" value="$PWD/samples/ner/es-ner.model"/>
    <param name="input-columns" value="$cols,ne1,maj,majne,majspan"/></stage>
  <stage plugin="conll_writer"><param name="columns" value="word,ne,predicted"/></stage>
</pipeline>
XML
    "$CRFPIPE" run "$out/es-chain.xml" -i "$d/esp.testb" -o "$out/$1-bioes"
    tobio "$out/$1-bioes" "$out/$1"
    "$CRFPIPE" eval "$out/$1" | grep -E 'chunk|FB1' | head -2
}
echo "== entities, testb with the corpus's POS tags, both passes"
chain esp.testb.tagged "" pos
echo "== entities, testb with the tagger's POS tags (three models in one pipeline)"
pos_stage='<stage plugin="viterbi"><param name="model" value="'"$PWD"'/samples/ner/es-pos.model"/>
    <param name="input-columns" value="form=word"/><param name="output" value="pos"/></stage>'
chain esp.testb.chain "$pos_stage" gold-pos
echo "== from raw text (GATE XML)"
echo "El presidente de Telefónica, César Alierta, visitó ayer la sede de la ONU en Nueva York." |
    "$CRFPIPE" run samples/ner/annotate-es.xml -o "$out/es-example.gate"
grep -c 'Type="Entity"' "$out/es-example.gate" | sed 's/^/Entity annotations: /'
