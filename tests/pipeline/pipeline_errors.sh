#!/bin/sh
# Pipelines: bad files and bad stages give clear errors naming the stage.
. "$top_srcdir/tests/pipeline/common.sh"
pos="$top_srcdir/samples/pos"

cat >"$tmp/unknown-plugin.xml" <<X
<pipeline xmlns="urn:crfpipe:pipeline:1"><stage plugin="conllu_reader"/>
<stage plugin="no_such_plugin"/></pipeline>
X
expect_fail "unknown-plugin.xml:2: stage 'no_such_plugin'" "$CRFPIPE" run "$tmp/unknown-plugin.xml" -i "$pos/test.conllu"

cat >"$tmp/unknown-param.xml" <<X
<pipeline xmlns="urn:crfpipe:pipeline:1"><stage plugin="conllu_reader"/>
<stage plugin="viterbi"><param name="modle" value="x"/></stage></pipeline>
X
expect_fail "stage 'viterbi'.*modle" "$CRFPIPE" run "$tmp/unknown-param.xml" -i "$pos/test.conllu"

cat >"$tmp/bad-type.xml" <<X
<pipeline xmlns="urn:crfpipe:pipeline:1"><stage plugin="conllu_reader"/>
<stage plugin="templates"><param name="template" value="$pos/pos.tpl"/></stage>
<stage plugin="lbfgs"><param name="model" value="m"/><param name="rho1" value="lots"/></stage>
</pipeline>
X
expect_fail "stage 'lbfgs'.*rho1" "$CRFPIPE" run "$tmp/bad-type.xml" -i "$pos/train.conllu"

cat >"$tmp/bad-order.xml" <<X
<pipeline xmlns="urn:crfpipe:pipeline:1"><stage plugin="xml_writer"/>
<stage plugin="conllu_reader"/></pipeline>
X
expect_fail "cannot come after" "$CRFPIPE" run "$tmp/bad-order.xml" -i "$pos/test.conllu"
# taggers may precede the features stage, but there is one features stage
cat >"$tmp/bad-order2.xml" <<X
<pipeline xmlns="urn:crfpipe:pipeline:1"><stage plugin="conllu_reader"/>
<stage plugin="templates"><param name="template" value="$pos/pos.tpl"/></stage>
<stage plugin="majority"/>
<stage plugin="templates"><param name="template" value="$pos/pos.tpl"/></stage>
<stage plugin="lbfgs"><param name="model" value="m"/></stage></pipeline>
X
expect_fail "bad-order2.xml:4: stage 'templates' (features) cannot come after a tagger" \
    "$CRFPIPE" run "$tmp/bad-order2.xml" -i "$pos/test.conllu"

cat >"$tmp/no-features.xml" <<X
<pipeline xmlns="urn:crfpipe:pipeline:1"><stage plugin="conllu_reader"/>
<stage plugin="lbfgs"><param name="model" value="m"/></stage></pipeline>
X
expect_fail "needs a features stage" "$CRFPIPE" run "$tmp/no-features.xml" -i "$pos/train.conllu"

cat >"$tmp/invalid.xml" <<X
<pipeline xmlns="urn:crfpipe:pipeline:1"><stage name="oops"/></pipeline>
X
expect_fail "invalid.xml:1" "$CRFPIPE" run "$tmp/invalid.xml"

printf '<pipeline xmlns="urn:crfpipe:pipeline:1"><stage plugin="x">' >"$tmp/malformed.xml"
expect_fail "malformed.xml" "$CRFPIPE" run "$tmp/malformed.xml"

expect_fail "nope.xml" "$CRFPIPE" run "$tmp/nope.xml"

# A string parameter that is not UTF-8 (from a command line; pipeline files
# are checked by the XML parser) is refused: it would become an annotation
# type or a feature name that no UTF-8 output can hold.
"$CRFPIPE" -q train --template "$top_srcdir/tests/pipeline/tiny.tpl" --label upos --max-iter 2 \
    --model "$tmp/u.model" "$pos/dev.conllu" || fail "train"
expect_fail "parameter 'spans' is not valid UTF-8 (byte 2)" "$CRFPIPE" tag --model "$tmp/u.model" \
    --to xml --spans "$(printf 'E\222x')" "$pos/dev.conllu"

# A file name that is not UTF-8 (any bytes on POSIX) still gives its
# document, named with U+FFFD for the bad byte (it used to vanish, exit 0).
for fmt in text gate; do
    f="$tmp/$(printf 'caf\351').$fmt"
    if [ $fmt = text ]; then echo "Hello world." >"$f"
    else printf '<GateDocument><TextWithNodes><Node id="0"/>Hi<Node id="2"/></TextWithNodes></GateDocument>' >"$f"; fi
    "$CRFPIPE" convert --from $fmt --to xml -o "$tmp/name.xml" "$f" || fail "$fmt: a file name that is not UTF-8"
    grep -q "<document id=\"caf$(printf '\357\277\275').$fmt\"" "$tmp/name.xml" ||
        { cat "$tmp/name.xml" >&2; fail "$fmt: the document of a file name that is not UTF-8"; }
done
finish
