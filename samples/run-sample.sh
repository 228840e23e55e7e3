#!/bin/bash
# The main job of ./quickstart: train a part-of-speech CRF on the shipped
# EWT excerpt with the sample pipeline, tag the test excerpt into an
# annotated XML corpus and score it; then train the entity tagger on the
# shipped WNUT-17 data (with that POS tagger's tags as features), so that
# the pipelines starting from raw text work:
#   echo "…" | crfpipe run samples/pos/annotate.xml    (crfpipe XML)
#   echo "…" | crfpipe run samples/ner/annotate.xml    (GATE XML)
set -euo pipefail
cd "$(dirname "$0")/.."
CRFPIPE=${CRFPIPE:-core/crfpipe}
out=samples/out
# (GATE XML outputs are named *.gate: tests/pipeline/samples.sh validates
# every samples/*/*.xml as a pipeline or corpus)
mkdir -p "$out"

echo "== training a POS tagger: samples/pos/train.xml (1,500 EWT sentences)"
"$CRFPIPE" --quiet run samples/pos/train.xml -i samples/pos/train.conllu
echo
echo "== tagging samples/pos/test.conllu into $out/pos-test.xml"
"$CRFPIPE" run samples/pos/tag.xml -i samples/pos/test.conllu -o "$out/pos-test.xml"
"$CRFPIPE" validate "$out/pos-test.xml"
echo
echo "== scoring against the gold UPOS: samples/pos/eval.xml"
"$CRFPIPE" run samples/pos/eval.xml -i samples/pos/test.conllu | head -4
echo
echo "== the same tagger reading a tag dictionary: samples/pos/train-td.xml, eval-td.xml"
"$CRFPIPE" --quiet run samples/pos/train-td.xml -i samples/pos/train.conllu
"$CRFPIPE" run samples/pos/eval-td.xml -i samples/pos/test.conllu | head -4
echo
echo "== grapheme-to-phoneme: align + train on the CMUdict excerpt (samples/g2p/train.xml)"
"$CRFPIPE" run samples/g2p/train.xml -i samples/g2p/train.dict 2>&1 | tail -3
"$CRFPIPE" run samples/g2p/eval.xml -i samples/g2p/test.dict
echo "crfpipe pronunciation" | "$CRFPIPE" run samples/g2p/pronounce.xml
echo "== training the entity tagger on WNUT-17 (train), with UPOS tags as features"
for s in train dev; do
    "$CRFPIPE" run samples/ner/pos-tag.xml -i "samples/ner/$s.conll" -o "$out/wnut-$s.xml"
done
"$CRFPIPE" --quiet run samples/ner/train.xml -i "$out/wnut-train.xml"
echo
echo "== from raw text to entities, in GATE XML: samples/ner/annotate.xml"
text="Apple's CEO Tim Cook met students in Berlin on Tuesday."
echo "\$ echo \"$text\" | crfpipe run samples/ner/annotate.xml"
echo "$text" | "$CRFPIPE" run samples/ner/annotate.xml -o "$out/example.gate"
# the entities found, with their text (the example is ASCII, so GATE's
# UTF-16 offsets are character positions)
awk -v text="$text" '
    /Type="Entity"/ { match($0, /StartNode="[0-9]+"/); s = substr($0, RSTART + 11, RLENGTH - 12)
                      match($0, /EndNode="[0-9]+"/);   e = substr($0, RSTART + 9, RLENGTH - 10)
                      want = 1; next }
    want && />type</ { getline; sub(/.*">/, ""); sub(/<.*/, "")
                      printf "Entity %-14s %s\n", $0, substr(text, s + 1, e - s); want = 0 }
' "$out/example.gate"
