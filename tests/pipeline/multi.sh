#!/bin/sh
# crfpipe run with several inputs (a corpus of files): the stages are opened
# once and every input goes through them.  Checked against what one input
# at a time gives:
# - --output-dir: each input's output equals its own run's, byte for byte,
#   named after the input with the writer's extension;
# - -o: the outputs of all inputs, in order, equal the run on the inputs
#   joined into one file (CoNLL-U: documents are their sentences);
# - a training pipeline trains on all inputs: the model equals the one of
#   the joined file;
# - crfpipe tag with several inputs: the same outputs as one tag per file;
# - a failing input stops the run: the outputs before it stay, its own and
#   the later ones are not written; refusals before anything is read.
. "$top_srcdir/tests/pipeline/common.sh"
pos="$top_srcdir/samples/pos"
tpl="$top_srcdir/tests/pipeline/tiny.tpl"
# three inputs: slices of the dev excerpt, cut at sentence boundaries
awk -v dir="$tmp" 'BEGIN { n = 1 } { print > (dir "/in" n ".conllu") }
    /^$/ { s++; if (s % 40 == 0 && n < 3) n++ }' "$pos/dev.conllu"
cat "$tmp/in1.conllu" "$tmp/in2.conllu" "$tmp/in3.conllu" >"$tmp/all.conllu"
[ -s "$tmp/in3.conllu" ] || fail "the split made fewer than three inputs"

"$CRFPIPE" -q train --template "$tpl" --label upos --threads 1 --max-iter 15 --model "$tmp/pos.model" \
    "$tmp/all.conllu" || fail "train the model"
cat >"$tmp/tag.xml" <<X
<pipeline xmlns="urn:crfpipe:pipeline:1">
  <stage plugin="conllu_reader"/>
  <stage plugin="viterbi"><param name="model" value="pos.model"/><param name="threads" value="1"/></stage>
  <stage plugin="conllu_writer"/>
</pipeline>
X
cat >"$tmp/train.xml" <<X
<pipeline xmlns="urn:crfpipe:pipeline:1">
  <stage plugin="conllu_reader"/>
  <stage plugin="templates"><param name="template" value="$tpl"/></stage>
  <stage plugin="lbfgs"><param name="model" value="multi.model"/><param name="label" value="upos"/>
    <param name="threads" value="1"/><param name="max-iter" value="15"/></stage>
</pipeline>
X

# one output per input
mkdir "$tmp/outd"
"$CRFPIPE" -q run "$tmp/tag.xml" --output-dir "$tmp/outd" "$tmp/in1.conllu" -i "$tmp/in2.conllu" \
    "$tmp/in3.conllu" || fail "run --output-dir"
for k in 1 2 3; do
    "$CRFPIPE" -q run "$tmp/tag.xml" -i "$tmp/in$k.conllu" -o "$tmp/one$k.conllu" || fail "run on input $k"
    [ -f "$tmp/outd/in$k.conllu" ] || { fail "no out/in$k.conllu"; continue; }
    cmp -s "$tmp/one$k.conllu" "$tmp/outd/in$k.conllu" || fail "input $k: its output differs from its own run's"
done
[ "$(ls "$tmp/outd" | wc -l)" = 3 ] || fail "not three outputs: $(ls "$tmp/outd")"

# one output for all
"$CRFPIPE" -q run "$tmp/tag.xml" "$tmp/in1.conllu" "$tmp/in2.conllu" "$tmp/in3.conllu" \
    -o "$tmp/joined.conllu" || fail "run with -o"
"$CRFPIPE" -q run "$tmp/tag.xml" -i "$tmp/all.conllu" -o "$tmp/whole.conllu" || fail "run on the joined file"
cmp -s "$tmp/joined.conllu" "$tmp/whole.conllu" || fail "three inputs into -o differ from the joined file's output"

# training on every input
(cd "$tmp" && "$CRFPIPE" -q run train.xml in1.conllu in2.conllu in3.conllu) || fail "train on three inputs"
mv "$tmp/multi.model" "$tmp/three.model"
(cd "$tmp" && "$CRFPIPE" -q run train.xml -i all.conllu) || fail "train on the joined file"
cmp -s "$tmp/three.model" "$tmp/multi.model" || fail "training on three inputs differs from the joined file"

# a failing input: the outputs before it stay, its own and the later ones are not written
rm -rf "$tmp/out2" && mkdir "$tmp/out2"
printf '1\tbad\n\n' >"$tmp/bad.conllu"
expect_fail "bad.conllu" "$CRFPIPE" -q run "$tmp/tag.xml" --output-dir "$tmp/out2" "$tmp/in1.conllu" \
    "$tmp/bad.conllu" "$tmp/in3.conllu"
[ -f "$tmp/out2/in1.conllu" ] || fail "the output of the input before the failure is gone"
[ -e "$tmp/out2/bad.conllu" ] && fail "the failing input's output was written"
[ -e "$tmp/out2/in3.conllu" ] && fail "an input after the failure was written"
ls "$tmp/out2" | grep -q tmp && fail "a temporary file was left"

# crfpipe tag takes several inputs the same way
mkdir "$tmp/tagd"
"$CRFPIPE" -q tag --model "$tmp/pos.model" --threads 1 --output-dir "$tmp/tagd" "$tmp/in1.conllu" \
    "$tmp/in2.conllu" || fail "tag --output-dir"
for k in 1 2; do
    "$CRFPIPE" -q tag --model "$tmp/pos.model" --threads 1 "$tmp/in$k.conllu" >"$tmp/t$k.conllu" ||
        fail "tag input $k"
    cmp -s "$tmp/t$k.conllu" "$tmp/tagd/in$k.conllu" || fail "tag: input $k's output differs from its own run's"
done
"$CRFPIPE" -q tag --model "$tmp/pos.model" --threads 1 "$tmp/in1.conllu" "$tmp/in2.conllu" >"$tmp/t12" ||
    fail "tag two inputs to stdout"
cat "$tmp/t1.conllu" "$tmp/t2.conllu" | cmp -s - "$tmp/t12" || fail "tag: two inputs to stdout differ from their runs'"
printf 'He PRP\n\n' >"$tmp/other.conll"
expect_fail "tag them separately, or give --format" "$CRFPIPE" tag --model "$tmp/pos.model" \
    "$tmp/in1.conllu" "$tmp/other.conll"

# refusals, before anything is read or written
expect_fail "would both be written to" "$CRFPIPE" run "$tmp/tag.xml" --output-dir "$tmp/out2" \
    "$tmp/in1.conllu" "$tmp/outd/in1.conllu"
expect_fail "not stdin" "$CRFPIPE" run "$tmp/tag.xml" --output-dir "$tmp/out2" - "$tmp/in1.conllu"
expect_fail "exclude each other" "$CRFPIPE" run "$tmp/tag.xml" --output-dir "$tmp/out2" -o x \
    "$tmp/in1.conllu" "$tmp/in2.conllu"
expect_fail "not a directory" "$CRFPIPE" run "$tmp/tag.xml" --output-dir "$tmp/in3.conllu" \
    "$tmp/in1.conllu" "$tmp/in2.conllu"
expect_fail "No such file or directory" "$CRFPIPE" run "$tmp/tag.xml" --output-dir "$tmp/no/dir" \
    "$tmp/in1.conllu" "$tmp/in2.conllu"
# a missing directory is made
"$CRFPIPE" -q run "$tmp/tag.xml" --output-dir "$tmp/made" "$tmp/in1.conllu" "$tmp/in2.conllu" &&
    cmp -s "$tmp/made/in1.conllu" "$tmp/one1.conllu" || fail "--output-dir did not make its directory"
expect_fail "overwritten by its own output" "$CRFPIPE" run "$tmp/tag.xml" --output-dir "$tmp/outd" \
    "$tmp/outd/in1.conllu" "$tmp/in2.conllu"
expect_fail "writes no documents" "$CRFPIPE" run "$tmp/train.xml" --output-dir "$tmp/out2" \
    "$tmp/in1.conllu" "$tmp/in2.conllu"
finish
