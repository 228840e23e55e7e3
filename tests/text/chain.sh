#!/bin/sh
# Taggers on tokenizer output, chained: text → icu_tokenizer → viterbi (POS,
# reading the token string as the template's `word` column) → viterbi
# (chunks, reading `word` and the first tagger's `pos`), each model trained
# on column files; every token gets both labels, chunks become Chunk
# annotations, each stage records its provenance, the output is valid.
. "$top_srcdir/tests/pipeline/common.sh"

# toy training data written for this test: word pos chunk
: >"$tmp/train.txt"
for d in the a; do
    for n in cat dog bird; do
        for v in sees chases; do
            for n2 in mouse ball; do
                printf '%s DT B-NP\n%s NN I-NP\n%s VBZ B-VP\nthe DT B-NP\nbig JJ I-NP\n%s NN I-NP\n. . O\n\n' \
                    "$d" "$n" "$v" "$n2" >>"$tmp/train.txt"
            done
        done
    done
done
printf 'U00:%%x[0,word]\nU01:%%x[-1,word]\nU02:%%x[1,word]\nB\n' >"$tmp/pos.tpl"
printf 'U00:%%x[0,pos]\nU01:%%x[-1,pos]\nU02:%%x[0,word]\nU03:%%x[-1,pos]/%%x[0,pos]\nB\n' >"$tmp/chunk.tpl"
"$CRFPIPE" --quiet train --template "$tmp/pos.tpl" --columns word,pos,chunk --label pos \
    --model "$tmp/pos.model" "$tmp/train.txt" || fail "train pos"
"$CRFPIPE" --quiet train --template "$tmp/chunk.tpl" --columns word,pos,chunk --label chunk \
    --model "$tmp/chunk.model" "$tmp/train.txt" || fail "train chunk"
cat >"$tmp/chain.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<pipeline xmlns="urn:crfpipe:pipeline:1" name="chain">
  <stage plugin="text_reader"/>
  <stage plugin="icu_tokenizer"><param name="locale" value="en"/></stage>
  <stage plugin="viterbi">
    <param name="model" value="pos.model"/>
    <param name="input-columns" value="word=string"/>
    <param name="output" value="pos"/>
  </stage>
  <stage plugin="viterbi">
    <param name="model" value="chunk.model"/>
    <param name="input-columns" value="word=string,pos"/>
    <param name="output" value="chunk"/>
    <param name="spans" value="Chunk"/>
    <param name="span-feature" value="type"/>
  </stage>
  <stage plugin="xml_writer"/>
</pipeline>
XML
printf 'The dog chases the big ball.\nA bird sees the big mouse.\n' >"$tmp/in.txt"
"$CRFPIPE" run "$tmp/chain.xml" -i "$tmp/in.txt" -o "$tmp/out.xml" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "chain run"; }
"$CRFPIPE" validate "$tmp/out.xml" >/dev/null || fail "chain output not valid"
ntok=$(grep -c 'type="Token"' "$tmp/out.xml")
npos=$(grep -c '<f name="pos">' "$tmp/out.xml")
nchunk=$(grep -c '<f name="chunk">' "$tmp/out.xml")
[ "$ntok" -eq 14 ] && [ "$npos" -eq 14 ] && [ "$nchunk" -eq 14 ] ||
    fail "tokens $ntok, pos $npos, chunk $nchunk (expected 14 each)"
# the toy tagger gets these right
grep -A3 '<f name="string">chases</f>' "$tmp/out.xml" | grep -q '<f name="pos">VBZ</f>' ||
    fail "chases/VBZ"
grep -A4 '<f name="string">ball</f>' "$tmp/out.xml" | grep -q '<f name="chunk">I-NP</f>' ||
    fail "ball/I-NP"
nnp=$(grep -c 'type="Chunk"' "$tmp/out.xml")
[ "$nnp" -ge 6 ] || fail "only $nnp Chunk annotations"
grep -q '<f name="type">NP</f>' "$tmp/out.xml" || fail "span feature 'type'"
# provenance: tokenizer, then both taggers with their models and inputs
grep -q '<processor plugin="icu_tokenizer"' "$tmp/out.xml" || fail "tokenizer provenance"
grep -q '<param name="model" value="[^"]*pos.model"/>' "$tmp/out.xml" || fail "pos provenance"
grep -q '<param name="input-columns" value="word=string,pos"/>' "$tmp/out.xml" ||
    fail "chunk provenance"
[ "$(grep -c '<processor plugin="viterbi"' "$tmp/out.xml")" -eq 2 ] || fail "two viterbi records"
# a misspelt input feature is reported, not silently tagged
sed 's/value="word=string"/value="word=strnig"/' "$tmp/chain.xml" >"$tmp/typo.xml"
"$CRFPIPE" run "$tmp/typo.xml" -i "$tmp/in.txt" -o "$tmp/typo.out" 2>"$tmp/err" || fail "typo run"
grep -q "no token has the feature 'strnig'" "$tmp/err" || fail "no warning for a missing feature"
# a template column the map does not provide is an error naming it
sed 's/value="word=string,pos"/value="word=string"/' "$tmp/chain.xml" >"$tmp/nopos.xml"
expect_fail "unknown column name 'pos'" "$CRFPIPE" run "$tmp/nopos.xml" -i "$tmp/in.txt"
sed 's/value="word=string,pos"/value="word=string,,pos"/' "$tmp/chain.xml" >"$tmp/bad.xml"
expect_fail "empty column or feature name" "$CRFPIPE" run "$tmp/bad.xml" -i "$tmp/in.txt"
sed 's/value="word=string,pos"/value="word=string,word"/' "$tmp/chain.xml" >"$tmp/dup.xml"
expect_fail "column 'word' given twice" "$CRFPIPE" run "$tmp/dup.xml" -i "$tmp/in.txt"
# label-bias: a large bias for one label makes every token take it; the
# setting is recorded; a label the model lacks and a model without the
# constant bigram B are errors
sed 's|<param name="output" value="pos"/>|<param name="output" value="pos"/><param name="label-bias" value="JJ:50"/>|' \
    "$tmp/chain.xml" >"$tmp/bias.xml"
"$CRFPIPE" run "$tmp/bias.xml" -i "$tmp/in.txt" -o "$tmp/bias.out" || fail "label-bias run"
[ "$(grep -c '<f name="pos">JJ</f>' "$tmp/bias.out")" -eq 14 ] || fail "label-bias JJ:50 did not win everywhere"
grep -q '<param name="label-bias" value="JJ:50"/>' "$tmp/bias.out" || fail "label-bias provenance"
sed 's|value="JJ:50"|value="XX:1"|' "$tmp/bias.xml" >"$tmp/bias2.xml"
expect_fail "has no label 'XX'" "$CRFPIPE" run "$tmp/bias2.xml" -i "$tmp/in.txt"
sed 's|value="JJ:50"|value="JJ"|' "$tmp/bias.xml" >"$tmp/bias3.xml"
expect_fail "expected LABEL:VALUE" "$CRFPIPE" run "$tmp/bias3.xml" -i "$tmp/in.txt"
printf 'U00:%%x[0,word]\n' >"$tmp/nob.tpl"
"$CRFPIPE" --quiet train --template "$tmp/nob.tpl" --columns word,pos,chunk --label pos \
    --model "$tmp/nob.model" "$tmp/train.txt" || fail "train nob"
expect_fail "no constant label bigram" "$CRFPIPE" tag --model "$tmp/nob.model" --label-bias DT:1 \
    --columns word,pos,chunk "$tmp/train.txt"
finish
