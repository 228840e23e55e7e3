#!/bin/bash
# The main job of ./quickstart: train a part-of-speech CRF on the shipped
# EWT excerpt with the sample pipeline, tag the test excerpt into an
# annotated XML corpus, and score it.
set -euo pipefail
cd "$(dirname "$0")/.."
CRFPIPE=${CRFPIPE:-core/crfpipe}
out=samples/out
mkdir -p "$out"

echo "== training a POS tagger: samples/pos/train.xml (1,500 EWT sentences)"
"$CRFPIPE" run samples/pos/train.xml -i samples/pos/train.conllu
echo
echo "== tagging samples/pos/test.conllu into $out/pos-test.xml"
"$CRFPIPE" run samples/pos/tag.xml -i samples/pos/test.conllu -o "$out/pos-test.xml"
"$CRFPIPE" validate "$out/pos-test.xml"
echo
echo "== scoring against the gold UPOS: samples/pos/eval.xml"
"$CRFPIPE" run samples/pos/eval.xml -i samples/pos/test.conllu | head -4
echo
echo "== grapheme-to-phoneme: align + train on the CMUdict excerpt (samples/g2p/train.xml)"
"$CRFPIPE" run samples/g2p/train.xml -i samples/g2p/train.dict 2>&1 | tail -3
"$CRFPIPE" run samples/g2p/eval.xml -i samples/g2p/test.dict
echo "crfpipe pronunciation" | "$CRFPIPE" run samples/g2p/pronounce.xml
