#!/bin/sh
# The sample pipelines that start from raw text, on a copy of samples/ with
# small models trained here (a few hundred sentences, a few iterations: the
# point is that each pipeline runs and its output is valid, not accuracy):
#   pos/annotate.xml       text -> tokens -> UPOS, crfpipe XML
#   ner/annotate.xml       text -> tokens -> UPOS -> entities, GATE XML
#   chunking/annotate.xml  text -> tokens -> PTB POS -> chunks (CoNLL-2000
#                          from ../shared/data; skipped without it)
#   ner/annotate-es.xml    Spanish, CoNLL-2002 (likewise)
. "$top_srcdir/tests/pipeline/common.sh"
s=$tmp/samples
mkdir -p "$s/out"
cp -r "$top_srcdir/samples/pos" "$top_srcdir/samples/ner" "$top_srcdir/samples/chunking" \
    "$top_srcdir/samples/text" "$s/"
chmod -R u+w "$s"
rng=$top_srcdir/tests/text/gate.rng
# first N sentences (blank-line separated) of a column file
head_sents() { awk -v n="$2" 'BEGIN { RS = ""; ORS = "\n\n" } NR <= n' "$1"; }
train() { "$CRFPIPE" --quiet train --max-iter 25 "$@" || fail "train $*"; }
# every Token of an XML corpus has feature $2
all_tokens_have() {
    t=$(grep -c 'type="Token"' "$1"); f=$(grep -c "<f name=\"$2\">" "$1")
    [ "$t" -gt 0 ] && [ "$t" -eq "$f" ] || fail "$1: $t tokens, $f with '$2'"
}

text='The quick brown fox didn'"'"'t jump over Dr. Smith'"'"'s dog in New York. It was 5 p.m.
Apple and Google opened offices in London and Paris last year.'

# --- POS from text
head_sents "$s/pos/train.conllu" 300 >"$s/pos-small.conllu"
train --template "$s/pos/pos.tpl" --label upos --model "$s/pos/pos.model" "$s/pos-small.conllu"
printf '%s\n' "$text" | "$CRFPIPE" run "$s/pos/annotate.xml" >"$s/out/pos.xml" || fail "pos/annotate.xml"
"$CRFPIPE" validate "$s/out/pos.xml" >/dev/null || fail "pos output invalid"
all_tokens_have "$s/out/pos.xml" upos
grep -q '<a id="[0-9]*" type="Sentence"' "$s/out/pos.xml" || fail "no sentences"

# --- NER from text, GATE XML out
head_sents "$s/ner/train.conll" 400 >"$s/wnut-small.conll"
"$CRFPIPE" run "$s/ner/pos-tag.xml" -i "$s/wnut-small.conll" -o "$s/out/wnut-train.xml" ||
    fail "ner/pos-tag.xml"
all_tokens_have "$s/out/wnut-train.xml" pos
sed -e 's|<param name="dev" value="../out/wnut-dev.xml"/>||' -e 's|<param name="dev-patience" value="0"/>|<param name="max-iter" value="25"/>|' \
    "$s/ner/train.xml" >"$s/ner/train-small.xml"
"$CRFPIPE" -q run "$s/ner/train-small.xml" -i "$s/out/wnut-train.xml" || fail "ner/train.xml"
printf '%s\n' "$text" | "$CRFPIPE" run "$s/ner/annotate.xml" >"$s/out/ner.gate.xml" ||
    fail "ner/annotate.xml"
if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout --relaxng "$rng" "$s/out/ner.gate.xml" 2>/dev/null || fail "ner output: invalid GATE XML"
fi
"$CRFPIPE" convert --from gate --to xml "$s/out/ner.gate.xml" "$s/out/ner.xml" || fail "GATE -> xml"
"$CRFPIPE" validate "$s/out/ner.xml" >/dev/null || fail "ner output invalid"
all_tokens_have "$s/out/ner.xml" pos
all_tokens_have "$s/out/ner.xml" ner
# spans carry their type
e=$(grep -c 'type="Entity"' "$s/out/ner.xml"); et=$(grep -A1 'type="Entity"' "$s/out/ner.xml" | grep -c '<f name="type">')
[ "$e" -eq "$et" ] || fail "$e Entity annotations, $et with a type"
grep -q 'crfpipe.processor' "$s/out/ner.gate.xml" || fail "no provenance in the GATE output"
# the same entities inline (annotate-inline.xml): one element per Entity, the text kept
printf '%s\n' "$text" | "$CRFPIPE" run "$s/ner/annotate-inline.xml" >"$s/out/ner-inline.xml" ||
    fail "ner/annotate-inline.xml"
"$CRFPIPE" convert --from markup --to xml "$s/out/ner-inline.xml" "$s/out/ner-inline.crf.xml" ||
    fail "the inline output does not read back"
ei=$(grep -c '<a id=' "$s/out/ner-inline.crf.xml" || true)
[ "$ei" -eq $((e + 1)) ] || fail "$e entities, $ei - 1 inline elements"

# --- chunking and Spanish, when the research-only data are at hand
data=$CRFP_SHARED_DATA
if [ -f "$data/conll2000/train.txt" ]; then
    head_sents "$data/conll2000/train.txt" 500 >"$s/c2k.txt"
    train --template "$s/pos/pos.tpl" --columns form,pos,chunk --label pos \
        --model "$s/chunking/ptb-pos.model" "$s/c2k.txt"
    train --template "$s/chunking/chunking.tpl" --columns word,pos,chunk \
        --model "$s/chunking/chunking.model" "$s/c2k.txt"
    printf '%s\n' "$text" | "$CRFPIPE" run "$s/chunking/annotate.xml" >"$s/out/chunk.xml" ||
        fail "chunking/annotate.xml"
    "$CRFPIPE" validate "$s/out/chunk.xml" >/dev/null || fail "chunking output invalid"
    all_tokens_have "$s/out/chunk.xml" chunk
    grep -q 'type="Chunk"' "$s/out/chunk.xml" || fail "no Chunk annotation"
else
    echo "no CoNLL-2000 under $data: chunking sample skipped"
fi
if [ -f "$data/conll2002_es/esp.train" ]; then
    head_sents "$data/conll2002_es/esp.train" 500 >"$s/es.txt"
    train --template "$s/pos/pos.tpl" --columns form,pos,ne --label pos \
        --model "$s/ner/es-pos.model" "$s/es.txt"
    # the tag dictionary's features, then both entity passes; the second
    # learns from the first's own labels of the same sentences (train-es.sh
    # jackknifes them)
    cat >"$s/out/es-td.xml" <<X
<?xml version="1.0"?><pipeline xmlns="urn:crfpipe:pipeline:1">
<stage plugin="conll_reader"><param name="columns" value="word,pos,ne"/><param name="batch-bytes" value="0"/><param name="docstart" value="false"/></stage>
<stage plugin="tagdict_build"><param name="dict" value="$s/ner/es.tagdict"/><param name="label" value="ne"/></stage>
<stage plugin="conll_writer"><param name="columns" value="word,pos,amb,amblc,ambtop,ne"/></stage></pipeline>
X
    "$CRFPIPE" -q run "$s/out/es-td.xml" -i "$s/es.txt" -o "$s/out/es-td.txt" || fail "es tagdict_build"
    td=word,pos,amb,amblc,ambtop
    train --template "$s/ner/es.tpl" --columns $td,ne --label ne \
        --model "$s/ner/es-ner1.model" "$s/out/es-td.txt"
    cat >"$s/out/es-maj.xml" <<X
<?xml version="1.0"?><pipeline xmlns="urn:crfpipe:pipeline:1">
<stage plugin="conll_reader"><param name="columns" value="$td,ne"/><param name="batch-bytes" value="0"/></stage>
<stage plugin="viterbi"><param name="model" value="$s/ner/es-ner1.model"/><param name="output" value="ne1"/></stage>
<stage plugin="majority"><param name="input" value="ne1"/></stage>
<stage plugin="conll_writer"><param name="columns" value="$td,ne1,maj,majne,majspan,ne"/></stage></pipeline>
X
    "$CRFPIPE" run "$s/out/es-maj.xml" -i "$s/out/es-td.txt" -o "$s/out/es-maj.txt" || fail "es majority"
    train --template "$s/ner/es2.tpl" --columns $td,ne1,maj,majne,majspan,ne --label ne \
        --model "$s/ner/es-ner.model" "$s/out/es-maj.txt"
    printf 'El presidente de Telefónica, César Alierta, visitó Madrid el lunes.\n' |
        "$CRFPIPE" run "$s/ner/annotate-es.xml" >"$s/out/es.gate.xml" || fail "ner/annotate-es.xml"
    "$CRFPIPE" convert --from gate --to xml "$s/out/es.gate.xml" "$s/out/es.xml" || fail "es GATE -> xml"
    "$CRFPIPE" validate "$s/out/es.xml" >/dev/null || fail "Spanish output invalid"
    all_tokens_have "$s/out/es.xml" ner
else
    echo "no CoNLL-2002 under $data: Spanish sample skipped"
fi
finish
