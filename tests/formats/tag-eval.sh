# `crfpipe tag --model M IN > OUT && crfpipe eval OUT` on CoNLL-U, CoNLL
# and XML input (shipped EWT and WNUT samples) reports what
# `crfpipe eval --model M IN` reports; also under names whose extension says
# nothing, so the format is detected from the content (issue 15).
. "$top_srcdir/tests/formats/common.sh"
S=$top_srcdir/samples

# UPOS on EWT: trained on the test excerpt of tests/data, scored on the
# sample's test file, as .conllu, as XML, and as a CoNLL-U file named .out.
train "$tmp/pos.model" "$top_srcdir/tests/pipeline/tiny.tpl" --label upos \
    "$top_srcdir/tests/data/ewt-sample.conllu"
tag_then_eval "$tmp/pos.model" "$S/pos/test.conllu" "$tmp/pos-out.conllu"
grep -q 'GoldUPOS=' "$tmp/pos-out.conllu" || fail "CoNLL-U output keeps no gold in MISC"
"$CRFPIPE" --quiet convert --from conllu --to xml "$S/pos/test.conllu" "$tmp/test.xml" \
    || fail "convert to xml"
tag_then_eval "$tmp/pos.model" "$tmp/test.xml" "$tmp/pos-out.xml"
cp "$S/pos/test.conllu" "$tmp/test.out"
tag_then_eval "$tmp/pos.model" "$tmp/test.out" "$tmp/pos-out2.conllu"
cmp -s "$tmp/pos-out.conllu" "$tmp/pos-out2.conllu" || fail ".out input not tagged as CoNLL-U"
cp "$tmp/test.xml" "$tmp/test-xml.txt"
tag_then_eval "$tmp/pos.model" "$tmp/test-xml.txt" "$tmp/pos-out3.xml"
# The tagged CoNLL-U file under a name that says nothing scores the same.
cp "$tmp/pos-out.conllu" "$tmp/tagged.out"
"$CRFPIPE" --quiet eval "$tmp/tagged.out" > "$tmp/r3" || fail "eval tagged.out"
"$CRFPIPE" --quiet eval --model "$tmp/pos.model" "$S/pos/test.conllu" > "$tmp/r4"
cmp -s "$tmp/r3" "$tmp/r4" || fail "eval of tagged.out differs from eval --model"

# Entities on WNUT-17 (two columns, word and BIO label).
train "$tmp/ner.model" "$S/ner/ner.tpl" "$S/ner/dev.conll"
tag_then_eval "$tmp/ner.model" "$S/ner/test.conll" "$tmp/ner-out.conll"
cp "$S/ner/test.conll" "$tmp/wnut.txt"
tag_then_eval "$tmp/ner.model" "$tmp/wnut.txt" "$tmp/ner-out.txt"
finish
