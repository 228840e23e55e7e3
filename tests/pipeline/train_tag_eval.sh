#!/bin/sh
# train / tag / eval / run / model dump end to end on the shipped EWT excerpt.
. "$top_srcdir/tests/pipeline/common.sh"
pos="$top_srcdir/samples/pos"
tpl="$top_srcdir/tests/pipeline/tiny.tpl"

# 1. CLI training, one thread, reproducible.
"$CRFPIPE" train --template "$tpl" --label upos --threads 1 --max-iter 30 \
    --model "$tmp/a.model" "$pos/train.conllu" 2>"$tmp/train.log" || { cat "$tmp/train.log"; fail "train"; }
grep -q "labels" "$tmp/train.log" || fail "no model size summary before training"
grep -q "^iter *1 " "$tmp/train.log" || fail "no progress line"
[ "$(grep -c '^iter' "$tmp/train.log")" -le 30 ] || fail "max-iter not honoured"

# 2. The same through a pipeline file: the same model, bit for bit.
cat >"$tmp/train.xml" <<X
<pipeline xmlns="urn:crfpipe:pipeline:1">
  <stage plugin="conllu_reader"/>
  <stage plugin="templates"><param name="template" value="$tpl"/></stage>
  <stage plugin="lbfgs">
    <param name="model" value="b.model"/><param name="label" value="upos"/>
    <param name="threads" value="1"/><param name="max-iter" value="30"/>
  </stage>
</pipeline>
X
"$CRFPIPE" --quiet run "$tmp/train.xml" -i "$pos/train.conllu" 2>"$tmp/run.log" || { cat "$tmp/run.log"; fail "run train.xml"; }
grep -q "^iter" "$tmp/run.log" && fail "--quiet still printed progress"
cmp -s "$tmp/a.model" "$tmp/b.model" || fail "crfpipe train and crfpipe run gave different models"

# 3. Evaluation with the model: a real tagger, not a constant.
"$CRFPIPE" eval --model "$tmp/a.model" --label upos "$pos/test.conllu" >"$tmp/eval.txt" || fail "eval"
acc=$(sed -n 's/^token accuracy: *\([0-9.]*\)%.*/\1/p' "$tmp/eval.txt")
echo "token accuracy on the EWT excerpt: $acc%"
awk -v a="$acc" 'BEGIN { exit !(a >= 80 && a <= 100) }' || fail "accuracy $acc% below 80%"
grep -q "^NOUN " "$tmp/eval.txt" || fail "no per-label line"
# -m, Wapiti's and CRFsuite's short option for the model, in tag and eval
"$CRFPIPE" eval -m "$tmp/a.model" --label upos "$pos/test.conllu" >"$tmp/eval-m.txt" || fail "eval -m"
cmp -s "$tmp/eval.txt" "$tmp/eval-m.txt" || fail "eval -m differs from eval --model"
"$CRFPIPE" tag --model "$tmp/a.model" "$pos/test.conllu" >"$tmp/tag-model.conllu" || fail "tag --model"
"$CRFPIPE" tag -m "$tmp/a.model" "$pos/test.conllu" >"$tmp/tag-m.conllu" || fail "tag -m"
cmp -s "$tmp/tag-model.conllu" "$tmp/tag-m.conllu" || fail "tag -m differs from tag --model"
# a word with a dash is an unknown option, not a file to read or train on
expect_fail "unknown option '-x'" "$CRFPIPE" tag -m "$tmp/a.model" -x "$pos/test.conllu"
expect_fail "unknown option '-x'" "$CRFPIPE" train --template "$tpl" --model "$tmp/x.model" -x \
    "$pos/train.conllu"
expect_fail "--init-model" "$CRFPIPE" train --template "$tpl" -m "$tmp/x.model" "$pos/train.conllu"

# 4. Tagging to columns: the prediction is the new last column; n-best and
# posteriors add theirs before it.
"$CRFPIPE" tag --model "$tmp/a.model" --to conll --nbest 3 --posteriors \
    -o "$tmp/tagged.txt" "$pos/test.conllu" || fail "tag"
awk -F'[ \t]' 'NF { print NF; exit }' "$tmp/tagged.txt" | grep -qx 14 || fail "expected 10+4 columns"
awk -F'[ \t]' 'NF && ($13 < 0 || $13 > 1) { bad = 1 } END { exit bad }' "$tmp/tagged.txt" \
    || fail "posterior outside [0,1]"
# the tagged column file scores the same as eval --model
"$CRFPIPE" eval --format conll --label upos --guess predicted \
    --columns id,form,lemma,upos,xpos,feats,head,deprel,deps,misc,predicted-2,predicted-3,predicted-prob,predicted \
    "$tmp/tagged.txt" >"$tmp/eval2.txt" || fail "eval of a tagged file"
acc2=$(sed -n 's/^token accuracy: *\([0-9.]*\)%.*/\1/p' "$tmp/eval2.txt")
[ "$acc" = "$acc2" ] || fail "eval of the tagged file ($acc2) differs from eval --model ($acc)"

# 4b. Posterior decoding takes each token's most probable label: its
# marginal is never below that of Viterbi's label at the same token, and
# is above it wherever the two labels differ (printed to 6 decimals).
"$CRFPIPE" tag --model "$tmp/a.model" --to conll --posteriors \
    -o "$tmp/vit.txt" "$pos/test.conllu" || fail "tag --posteriors"
"$CRFPIPE" tag --model "$tmp/a.model" --to conll --posteriors --decode posterior \
    -o "$tmp/post.txt" "$pos/test.conllu" || fail "tag --decode posterior"
paste -d' ' "$tmp/vit.txt" "$tmp/post.txt" | awk '
    NF == 0 { next }
    { n++; pv = $11; pp = $23
      if (pp < pv - 1e-6) { print "token " n ": marginal " pp " below Viterbi'"'"'s " pv; bad = 1 }
      if ($12 != $24) { d++; if (pp <= pv) { print "token " n ": a different label, not more probable"; bad = 1 } }
      sv += pv; sp += pp }
    END { printf "posterior decoding: %d of %d tokens differ from Viterbi; expected correct %.1f vs %.1f\n", d, n, sp, sv
          exit bad || n < 1000 }' || fail "posterior decoding is not the marginals' argmax"
# eval --decode scores what tag --decode writes; --decode needs --model
"$CRFPIPE" eval --model "$tmp/a.model" --decode posterior "$pos/test.conllu" >"$tmp/evalp.txt" \
    || fail "eval --decode posterior"
accp=$(sed -n 's/^token accuracy: *\([0-9.]*\)%.*/\1/p' "$tmp/evalp.txt")
accp2=$(awk 'NF { n++; c += ($4 == $12) } END { printf "%.2f", 100 * c / n }' "$tmp/post.txt")
[ "$accp" = "$accp2" ] || fail "eval --decode posterior ($accp) differs from the tagged file ($accp2)"
expect_fail "needs --model" "$CRFPIPE" eval --decode posterior "$tmp/post.txt"
# the tagging run records how it decoded, with every other option set too
"$CRFPIPE" tag --model "$tmp/a.model" --decode posterior --scores true --label-bias NOUN:0.1 \
    --input-columns id,form,lemma,upos,xpos,feats,head,deprel,deps,misc --to xml \
    -o "$tmp/postall.xml" "$pos/test.conllu" || fail "tag with every option"
grep -q 'name="decode" value="posterior"' "$tmp/postall.xml" || fail "decode not in the provenance"
grep -q 'name="label-bias" value="NOUN:0.1"' "$tmp/postall.xml" || fail "label-bias not in the provenance"
expect_fail "decode must be viterbi or posterior" "$CRFPIPE" tag --model "$tmp/a.model" --decode best \
    "$pos/test.conllu"
expect_fail "cannot go with nbest" "$CRFPIPE" tag --model "$tmp/a.model" --decode posterior --nbest 2 \
    "$pos/test.conllu"

# 5. XML output validates against the schema and carries provenance.
"$CRFPIPE" tag --model "$tmp/a.model" --to xml -o "$tmp/tagged.xml" "$pos/test.conllu" || fail "tag to xml"
"$CRFPIPE" validate "$tmp/tagged.xml" >/dev/null || fail "tagged XML is not valid"
grep -q 'plugin="viterbi"' "$tmp/tagged.xml" || fail "no viterbi provenance"

# 5b. Separate processes chain through Unix pipes: column file -> XML on
# stdout -> a tagging pipeline reading XML on stdin -> XML on stdout.
cat >"$tmp/tagxml.xml" <<X
<pipeline xmlns="urn:crfpipe:pipeline:1">
  <stage plugin="viterbi"><param name="model" value="$tmp/a.model"/></stage>
</pipeline>
X
"$CRFPIPE" convert --from conllu --to xml "$pos/test.conllu" | "$CRFPIPE" run "$tmp/tagxml.xml" \
    >"$tmp/piped.xml" || fail "piped pipeline"
"$CRFPIPE" validate "$tmp/piped.xml" >/dev/null || fail "piped output is not valid"
[ "$(grep -c 'name="predicted"' "$tmp/piped.xml")" -eq "$(grep -c 'name="predicted"' "$tmp/tagged.xml")" ] \
    || fail "piped tagging lost tokens"

# 6. Model dump.
"$CRFPIPE" model dump "$tmp/a.model" >"$tmp/dump.txt" || fail "model dump"
grep -q "^U	" "$tmp/dump.txt" || fail "dump has no unigram weights"
grep -q "^B	" "$tmp/dump.txt" || fail "dump has no bigram weights"

# 7. Bad models: truncated, garbage, missing; no partial output left behind.
head -c 100 "$tmp/a.model" >"$tmp/trunc.model"
expect_fail "trunc.model" "$CRFPIPE" tag --model "$tmp/trunc.model" -o "$tmp/never.txt" "$pos/test.conllu"
[ -e "$tmp/never.txt" ] && fail "partial output left after a failed tag"
ls "$tmp" | grep -q 'never.txt.tmp' && fail "temporary output left behind"
echo "not a model" >"$tmp/garbage.model"
expect_fail "garbage.model" "$CRFPIPE" model dump "$tmp/garbage.model"
expect_fail "missing.model" "$CRFPIPE" tag --model "$tmp/missing.model" "$pos/test.conllu"

# 8. OWL-QN gives a sparser model; warm start runs.
"$CRFPIPE" --quiet train --template "$tpl" --label upos --rho1 1 --max-iter 30 \
    --model "$tmp/l1.model" "$pos/train.conllu" || fail "train with rho1"
n2=$(grep -c "^[UB]	" "$tmp/dump.txt")
"$CRFPIPE" model dump "$tmp/l1.model" >"$tmp/dump1.txt" || fail "dump l1"
n1=$(grep -c "^[UB]	" "$tmp/dump1.txt")
echo "active weights: l2 $n2, l1 $n1"
[ "$n1" -lt "$n2" ] || fail "l1 model is not sparser ($n1 vs $n2)"
"$CRFPIPE" --quiet train --template "$tpl" --label upos --init-model "$tmp/a.model" --max-iter 3 \
    --model "$tmp/warm.model" "$pos/train.conllu" || fail "warm start"

# 9. Ctrl-C stops training cleanly and still saves the model.
"$CRFPIPE" train --template "$tpl" --label upos --threads 1 --max-iter 100000 --epsilon 0 \
    --model "$tmp/int.model" "$pos/train.conllu" 2>"$tmp/int.log" &
pid=$!
i=0
while ! grep -q "^iter *3 " "$tmp/int.log" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -INT $pid
rc=0
wait $pid || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || fail "interrupted training exited with $rc"
grep -q "interrupted" "$tmp/int.log" || fail "no 'interrupted' message"
"$CRFPIPE" model dump "$tmp/int.model" >/dev/null || fail "model saved at interrupt does not load"

# 10. A 10,000-token sentence trains and tags.
awk 'BEGIN { srand(7); for (i = 0; i < 10000; i++) { w = "w" int(rand() * 50); print w, (substr(w, 2) % 3 ? "A" : "B") } }' \
    >"$tmp/long.txt"
cat >"$tmp/long.tpl" <<X
U00:%x[0,0]
U01:%x[-1,0]
B
X
"$CRFPIPE" --quiet train --template "$tmp/long.tpl" --columns word,label --max-iter 5 \
    --model "$tmp/long.model" "$tmp/long.txt" || fail "training on a 10,000-token sentence"
"$CRFPIPE" tag --model "$tmp/long.model" --columns word,label "$tmp/long.txt" >"$tmp/long.out" \
    || fail "tagging a 10,000-token sentence"
[ "$(grep -c . "$tmp/long.out")" -eq 10000 ] || fail "tagged output lost tokens"

# 11. A dev set whose columns are not the training data's is refused
# (templates read columns by position: a dev file without the middle
# column would have its labels read as that column); columns appended
# after them, as a tagger's output, are accepted.
awk 'NR <= 3000 { if ($1 == "") print ""; else print $1, substr($1, 1, 2), $2 }' \
    "$tmp/long.txt" >"$tmp/three.txt"
awk '{ if ($1 == "") print ""; else print $1, $3 }' "$tmp/three.txt" >"$tmp/two.txt"
printf 'U00:%%x[0,0]\nU01:%%x[0,1]\nB\n' >"$tmp/three.tpl"
expect_fail "has the columns word,label where the training data has word,col1,label" \
    "$CRFPIPE" train --template "$tmp/three.tpl" --max-iter 2 --dev "$tmp/two.txt" \
    --model "$tmp/three.model" "$tmp/three.txt"
"$CRFPIPE" -q train --template "$tmp/three.tpl" --max-iter 2 --model "$tmp/three.model" \
    "$tmp/three.txt" || fail "train on three columns"
"$CRFPIPE" -q train --template "$tmp/three.tpl" --max-iter 2 --dev "$tmp/three.txt" \
    --model "$tmp/three.model" "$tmp/three.txt" || fail "a dev set with the same columns"
# The model records its columns; tagging warns (once) where the input's
# differ, as CoNLL-U's do from a word/POS file's, and is quiet on the
# training layout and on the same file without its gold column.
"$CRFPIPE" model info "$tmp/three.model" | grep -q "^meta	columns	word,col1,label$" \
    || fail "the model does not record its columns"
awk '{ if ($1 == "") print ""; else print $1, $2 }' "$tmp/three.txt" >"$tmp/nogold.txt"
# the same with the columns named in training, by position in tagging
"$CRFPIPE" -q train --template "$tmp/three.tpl" --max-iter 2 --columns word,pos,chunk \
    --model "$tmp/named.model" "$tmp/three.txt" || fail "train with named columns"
for m in three:word,col1,label named:word,pos,chunk; do
    model=$tmp/${m%%:*}.model cols=${m#*:}
    for f in three.txt nogold.txt; do
        "$CRFPIPE" tag --model "$model" -o "$tmp/t.out" "$tmp/$f" 2>"$tmp/t.err" || fail "tag $f"
        ! grep -q 'trained on the columns' "$tmp/t.err" || fail "a columns warning on $f ($m)"
    done
    "$CRFPIPE" tag --model "$model" -o "$tmp/t.out" "$pos/test.conllu" 2>"$tmp/t.err" ||
        fail "tag CoNLL-U with a column-file model ($m)"
    [ "$(grep -c "trained on the columns $cols, and document .* has id,form," "$tmp/t.err")" -eq 1 ] \
        || { cat "$tmp/t.err" >&2; fail "no single warning for CoNLL-U input ($m)"; }
done
# A template that names its columns reads a file without --columns (named
# word, col1, label by position) under the model's names, by position, as
# Wapiti and CRF++ do: the labels are those of the file named, with or
# without its gold column, and --force finds the gold in the last column.
printf 'U00:%%x[0,word]\nU01:%%x[0,pos]\nU02:%%x[-1,pos]/%%x[0,pos]\nB\n' >"$tmp/named.tpl"
"$CRFPIPE" -q train --template "$tmp/named.tpl" --max-iter 30 --columns word,pos,chunk \
    --model "$tmp/bypos.model" "$tmp/three.txt" || fail "train a template of named columns"
# (training needs the names: without them the error says so)
expect_fail "unknown column name 'pos'; the file's columns have no names (word,col1,label, by position): name them with --columns" \
    "$CRFPIPE" train --template "$tmp/named.tpl" --model "$tmp/x.model" "$tmp/three.txt"
for f in three:word,pos,chunk nogold:word,pos; do
    "$CRFPIPE" -q tag --model "$tmp/bypos.model" --columns "${f#*:}" "$tmp/${f%%:*}.txt" \
        >"$tmp/named.out" || fail "tag ${f%%:*} with its columns named"
    "$CRFPIPE" --verbose tag --model "$tmp/bypos.model" "$tmp/${f%%:*}.txt" >"$tmp/bypos.out" \
        2>"$tmp/t.err" || { cat "$tmp/t.err" >&2; fail "tag ${f%%:*} named by position"; }
    cmp -s "$tmp/named.out" "$tmp/bypos.out" || fail "${f%%:*}: other labels by position"
    [ "$(grep -c "names its columns by position.*read as the model's ${f#*:}," "$tmp/t.err")" -eq 1 ] \
        || { cat "$tmp/t.err" >&2; fail "${f%%:*}: not one note of the columns read by position"; }
done
# (every 7th gold label swapped, so that the model would not choose it)
awk 'NF && NR % 7 == 0 { $3 = $3 == "A" ? "B" : "A" } { print }' "$tmp/three.txt" >"$tmp/swapped.txt"
"$CRFPIPE" -q tag --model "$tmp/bypos.model" "$tmp/swapped.txt" >"$tmp/free.out" ||
    fail "tag by position"
awk 'NF && $3 != $4 { bad++ } END { exit !(bad > 100) }' "$tmp/free.out" ||
    fail "the swapped labels are what the model chooses"
"$CRFPIPE" -q tag --model "$tmp/bypos.model" --force "$tmp/swapped.txt" >"$tmp/forced.out" ||
    fail "forced tagging by position"
awk 'NF && $3 != $4 { bad++ } END { exit bad > 0 }' "$tmp/forced.out" ||
    fail "--force did not keep the gold labels of the column named by position"
# A warm start reads such a file as its model's columns too, and the new
# model records them (so it tags the file as its parent does).
"$CRFPIPE" -q train --init-model "$tmp/bypos.model" --max-iter 3 --model "$tmp/warm1.model" \
    "$tmp/three.txt" || fail "warm start on columns named by position"
"$CRFPIPE" -q train --init-model "$tmp/bypos.model" --max-iter 3 --model "$tmp/warm2.model" \
    --columns word,pos,chunk "$tmp/three.txt" || fail "warm start on named columns"
"$CRFPIPE" model dump "$tmp/warm1.model" >"$tmp/warm1.dump"
"$CRFPIPE" model dump "$tmp/warm2.model" >"$tmp/warm2.dump"
cmp -s "$tmp/warm1.dump" "$tmp/warm2.dump" ||
    { diff "$tmp/warm1.dump" "$tmp/warm2.dump" | head >&2; fail "warm start by position differs"; }
grep -q "^meta	columns	word,pos,chunk$" "$tmp/warm1.dump" || fail "warm start: its columns not recorded"
"$CRFPIPE" tag --model "$tmp/three.model" --input-columns form,xpos -o "$tmp/t.out" \
    "$pos/test.conllu" 2>"$tmp/t.err" || fail "tag with input-columns"
! grep -q 'trained on the columns' "$tmp/t.err" || fail "a columns warning despite input-columns"
# A dev sentence with a label the training data lacks cannot be scored: the
# first is named, the count reported once, the rest of the dev set used;
# a dev set of nothing else is an error.
awk 'BEGIN { for (i = 0; i < 40; i++) print "w1 " (i % 2 ? "zz" : "A") "\n" }' >"$tmp/unk.txt"
awk 'NR <= 60' "$tmp/three.txt" | awk '{ print $1, $3 }' >>"$tmp/unk.txt"
awk '{ print $1, $3 }' "$tmp/three.txt" >"$tmp/two-train.txt"
"$CRFPIPE" train --template "$tmp/long.tpl" --max-iter 2 --dev "$tmp/unk.txt" \
    --model "$tmp/unk.model" "$tmp/two-train.txt" 2>"$tmp/unk.err" || fail "train with unknown dev labels"
[ "$(grep -c "label 'zz' unknown" "$tmp/unk.err")" -eq 1 ] || fail "not one warning for the first"
grep -q "dev: 20 of [0-9]* sentences (20 tokens) left out" "$tmp/unk.err" ||
    { cat "$tmp/unk.err" >&2; fail "no count of the dev sentences left out"; }
grep -q '^iter.*dev-err' "$tmp/unk.err" || fail "no dev error for the rest"
awk 'BEGIN { print "w1 zz\n\nw2 zz\n" }' >"$tmp/allunk.txt"
expect_fail "none of the dev set's 2 sentences can be scored" "$CRFPIPE" train \
    --template "$tmp/long.tpl" --max-iter 2 --dev "$tmp/allunk.txt" --model "$tmp/unk.model" \
    "$tmp/two-train.txt"
# the same for a second training input of a run
cat >"$tmp/three.xml" <<X
<pipeline xmlns="urn:crfpipe:pipeline:1">
  <stage plugin="conll_reader"/>
  <stage plugin="templates"><param name="template" value="$tmp/three.tpl"/></stage>
  <stage plugin="lbfgs"><param name="model" value="$tmp/three.model"/>
    <param name="max-iter" value="2"/></stage>
</pipeline>
X
expect_fail "two.txt: document 'd1' has the columns word,label" \
    "$CRFPIPE" -q run "$tmp/three.xml" "$tmp/three.txt" "$tmp/two.txt"

# 12. --reader-param reaches the reader of train (and its dev set), tag and
# eval: tab-separated columns whose cells hold spaces ("New York").
awk 'NF && NR % 3 { printf "%s %s\t%s\t%s\n", $1, $1, $2, $3; next }
     NF { printf "%s\t%s\t%s\n", $1, $2, $3; next } { print "" }' "$tmp/three.txt" >"$tmp/tabs.txt"
expect_fail "fields, but the document's first token line" "$CRFPIPE" train \
    --template "$tmp/three.tpl" --max-iter 2 --model "$tmp/tabs.model" "$tmp/tabs.txt"
"$CRFPIPE" -q train --template "$tmp/three.tpl" --max-iter 5 --reader-param separator=tab \
    --dev "$tmp/tabs.txt" --model "$tmp/tabs.model" "$tmp/tabs.txt" || fail "train --reader-param"
"$CRFPIPE" tag --model "$tmp/tabs.model" --reader-param separator=tab -o "$tmp/tabs.out" \
    "$tmp/tabs.txt" || fail "tag --reader-param"
awk -F'\t' 'NF && NF != 4 { bad = 1 } NF && $1 ~ / / { sp++ } END { exit bad || sp < 100 }' "$tmp/tabs.out" \
    || fail "the tagged file lost its cells with spaces"
a1=$("$CRFPIPE" eval --reader-param separator=tab "$tmp/tabs.out" | sed -n 's/^token accuracy: *\([0-9.]*\)%.*/\1/p')
a2=$("$CRFPIPE" eval --reader-param separator=tab --model "$tmp/tabs.model" "$tmp/tabs.txt" |
     sed -n 's/^token accuracy: *\([0-9.]*\)%.*/\1/p')
[ -n "$a1" ] && [ "$a1" = "$a2" ] || fail "eval --reader-param: $a1 vs $a2"
expect_fail "unknown parameter 'sep'" "$CRFPIPE" tag --model "$tmp/tabs.model" \
    --reader-param sep=tab "$tmp/tabs.txt"
expect_fail "expects NAME=VALUE" "$CRFPIPE" eval --reader-param tab "$tmp/tabs.out"

# Chunk types longer than the scorer's 63-byte field: two types that differ
# only at byte 71 stay two types in eval, and the spans the tagger writes
# carry the whole type.
long=$(printf '%070d' 0 | tr 0 x)
for i in 1 2 3; do
    printf 'a B-%sA\nb I-%sA\nc O\nd B-%sB\ne I-%sB\n\n' "$long" "$long" "$long" "$long"
done >"$tmp/long.txt"
printf 'U:%%x[0,0]\nB\n' >"$tmp/long.tpl"
"$CRFPIPE" -q train --template "$tmp/long.tpl" --columns word,label --model "$tmp/long.model" \
    "$tmp/long.txt" || fail "train on long types"
"$CRFPIPE" tag --model "$tmp/long.model" --columns word,label -o "$tmp/long.out" "$tmp/long.txt" ||
    fail "tag long types"
"$CRFPIPE" eval "$tmp/long.out" >"$tmp/long.eval" || fail "eval long types"
[ "$(grep -c 'precision: 100.00%; recall: 100.00%; FB1: 100.00  3$' "$tmp/long.eval")" = 2 ] ||
    { cat "$tmp/long.eval"; fail "two long types that share 70 bytes are not two types of 3 chunks"; }
"$CRFPIPE" tag --model "$tmp/long.model" --columns word,label --to xml "$tmp/long.txt" |
    grep -c ">${long}[AB]</f>" | grep -qx 6 || fail "the spans lost the end of their long types"
finish
