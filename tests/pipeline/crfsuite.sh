#!/bin/sh
# CRFsuite's data format (crfsuite_reader, crfsuite_writer): a corpus made
# for `crfsuite learn` trains the very model its attributes give in any
# other spelling, tags to what `crfsuite tag -r` prints, and its weights,
# escapes and declarations are read as CRFsuite means them or refused with
# the line.
. "$top_srcdir/tests/pipeline/common.sh"
pos="$top_srcdir/samples/pos"

# The EWT excerpt as CRFsuite data, attributes as a feature extractor for
# `crfsuite learn` writes them: ':' and '\' in names escaped, a weight
# of 1 written out on one attribute and a weight of 0 (no feature) on
# another; and the same attributes as a column file for the attributes
# plugin (space-separated, '\' and ' ' escaped, the weight-0 one left out).
mk() {
    awk -F'\t' -v cs="$2" -v col="$3" -v nolabel="${4:-0}" '
        function esc_cs(s) { gsub(/\\/, "\\\\", s); gsub(/:/, "\\:", s); return s }
        function esc_col(s) { gsub(/\\/, "\\\\", s); gsub(/ /, "\\s", s); return s }
        function flush(   t, a, i, n, lab) {
            for (t = 1; t <= n_; t++) {
                n = 0
                a[++n] = "w=" tolower(w[t])
                a[++n] = "suf3=" substr(w[t], length(w[t]) > 2 ? length(w[t]) - 2 : 1)
                a[++n] = "w-1=" (t > 1 ? w[t - 1] : "<s>")
                a[++n] = "w+1=" (t < n_ ? w[t + 1] : "</s>")
                if (w[t] ~ /^[A-Z]/) a[++n] = "title"
                lab = nolabel ? "" : y[t]
                line = lab; cell = ""
                for (i = 1; i <= n; i++) {
                    line = line "\t" esc_cs(a[i])
                    cell = cell (i > 1 ? " " : "") esc_col(a[i])
                }
                print line "\tbias:1\tnever:0" > cs
                print cell " bias\t" y[t] > col
            }
            if (n_) { print "" > cs; print "" > col }
            n_ = 0
        }
        /^#/ { next }
        NF == 0 { flush(); next }
        $1 ~ /[-.]/ { next }
        { w[++n_] = $2; y[n_] = $4 }
        END { flush() }' "$1"
}
awk 'NR > 3000 && /^$/ { print; exit } { print }' "$pos/train.conllu" >"$tmp/train.conllu"
awk 'NR > 1500 && /^$/ { print; exit } { print }' "$pos/test.conllu" >"$tmp/test.conllu"
mk "$tmp/train.conllu" "$tmp/train.crfsuite" "$tmp/train.tsv"
mk "$tmp/test.conllu" "$tmp/test.crfsuite" "$tmp/test.tsv"
mk "$tmp/test.conllu" "$tmp/unlabelled.crfsuite" /dev/null 1
grep -q 'w=[^	]*\\:' "$tmp/train.crfsuite" || fail "the data has no escaped colon to test"

# 1. The same model from CRFsuite data and from the column file: the
# weights, line for line (the metadata names the readers).
opts="--features attributes --threads 1 --max-iter 30"
"$CRFPIPE" -q train $opts --model "$tmp/cs.model" "$tmp/train.crfsuite" || fail "train on crfsuite"
"$CRFPIPE" -q train $opts --format conll --columns attrs,label --reader-param separator=tab \
    --model "$tmp/col.model" "$tmp/train.tsv" || fail "train on columns"
"$CRFPIPE" model dump "$tmp/cs.model" | grep -E '^(U|B)	' >"$tmp/cs.w"
"$CRFPIPE" model dump "$tmp/col.model" | grep -E '^(U|B)	' >"$tmp/col.w"
[ -s "$tmp/cs.w" ] && cmp -s "$tmp/cs.w" "$tmp/col.w" ||
    fail "the CRFsuite data trained other weights than the same attributes as columns"
# "\:" is a colon of the name, "bias:1" the attribute bias, "never:0" none
grep -q '^U	w=[^	]*:' "$tmp/cs.w" || fail "no observation with a colon from '\\:'"
grep -q '^U	bias	' "$tmp/cs.w" || fail "bias:1 is not the attribute bias"
grep -q '^U	never' "$tmp/cs.w" && fail "never:0 became an observation"
grep -q '^U	bias:1' "$tmp/cs.w" && fail "the weight stayed in the name"

# 2. Tagging prints what crfsuite tag -r prints: gold TAB prediction, a
# blank line after each sequence; scored with --label word --guess label
# it gives eval --model's figures.  Without labels, the predictions alone.
"$CRFPIPE" tag --model "$tmp/cs.model" -o "$tmp/pred.txt" "$tmp/test.crfsuite" || fail "tag"
awk -F'\t' 'NF != 0 && NF != 2 { bad = 1 } END { exit bad }' "$tmp/pred.txt" ||
    fail "tag output lines are not GOLD<TAB>PREDICTED"
[ "$(grep -c '^$' "$tmp/pred.txt")" = "$(grep -c '^$' "$tmp/test.crfsuite")" ] ||
    fail "tag output has other sequences than its input"
"$CRFPIPE" eval --model "$tmp/cs.model" "$tmp/test.crfsuite" >"$tmp/e1.txt" || fail "eval --model"
"$CRFPIPE" eval --label word --guess label "$tmp/pred.txt" >"$tmp/e2.txt" || fail "eval of tag output"
a1=$(grep '^token accuracy' "$tmp/e1.txt")
[ -n "$a1" ] && [ "$a1" = "$(grep '^token accuracy' "$tmp/e2.txt")" ] ||
    fail "eval of the tag output ($(grep '^token accuracy' "$tmp/e2.txt")) is not eval --model's ($a1)"
expect_fail "give --label word --guess label" "$CRFPIPE" eval "$tmp/pred.txt"
"$CRFPIPE" tag --model "$tmp/cs.model" "$tmp/unlabelled.crfsuite" >"$tmp/unl.txt" ||
    fail "tag unlabelled data"
cut -f2 "$tmp/pred.txt" | cmp -s - "$tmp/unl.txt" || fail "unlabelled data tagged otherwise"
# found from the content, without the extension
cp "$tmp/test.crfsuite" "$tmp/test.data"
"$CRFPIPE" tag --model "$tmp/cs.model" "$tmp/test.data" | cmp -s - "$tmp/pred.txt" ||
    fail "CRFsuite data not recognised from its content"
# ... but a column file of attribute=value cells, its label last, stays CoNLL
printf 'w=the\tpos=DT\tB-NP\nw=cat\tpos=NN\tI-NP\n\n' >"$tmp/feat.txt"
"$CRFPIPE" convert --to xml -o "$tmp/feat.xml" "$tmp/feat.txt" || fail "convert feat.txt"
grep -q '<f name="format">conll</f>' "$tmp/feat.xml" || fail "attribute=value columns read as CRFsuite"
# the columns this format cannot hold are named once
"$CRFPIPE" tag --model "$tmp/cs.model" --posteriors -o "$tmp/p2.txt" "$tmp/test.crfsuite" \
    2>"$tmp/err" || fail "tag --posteriors"
[ "$(grep -c 'predicted-prob' "$tmp/err")" = 1 ] || fail "the dropped probability is not named once"
cmp -s "$tmp/p2.txt" "$tmp/pred.txt" || fail "--posteriors changed the labels written"

# 3. Weights scale their attribute's features (tests/data/crfsuite-valued:
# CRFsuite's own optimum); weights=binary takes them as 1, weights=error
# refuses them with the line; what CRFsuite means and crfpipe cannot do is
# refused with the line.
printf 'A\tx\ty:0.5\n\n' >"$tmp/w.crfsuite"
expect_fail "w.crfsuite:1: attribute 'y' has weight 0.5" \
    "$CRFPIPE" train $opts --reader-param weights=error --model "$tmp/x.model" "$tmp/w.crfsuite"
printf 'A\tx\ty:0.5\nB\ty\n\n' >"$tmp/w.crfsuite"
"$CRFPIPE" -q train $opts --reader-param weights=binary --model "$tmp/x.model" "$tmp/w.crfsuite" ||
    fail "weights=binary"
"$CRFPIPE" model dump "$tmp/x.model" | grep -q '^U	y	' || fail "weights=binary: no y"
# the scale in the model's numbers: with y:0.5 on A and y:1 on B, and y
# alone at both tokens, y's weights are those of a binary y on twice-as-
# strong data only if the value was used; here it is enough that binary
# and scale give different weights, and scale the same as y\*0.5 written
# as an attribute cell by hand
"$CRFPIPE" -q train $opts --model "$tmp/s.model" "$tmp/w.crfsuite" || fail "weights=scale"
"$CRFPIPE" model dump "$tmp/x.model" | grep '^[UB]	' >"$tmp/bin.w"
"$CRFPIPE" model dump "$tmp/s.model" | grep '^[UB]	' >"$tmp/scale.w"
cmp -s "$tmp/bin.w" "$tmp/scale.w" && fail "weights=scale trained the binary model"
printf 'x y\\*0.5\tA\ny\tB\n\n' >"$tmp/w.tsv"
"$CRFPIPE" -q train $opts --format conll --columns attrs,label --reader-param separator=tab --model "$tmp/c.model" \
    "$tmp/w.tsv" || fail "train the attribute cells"
"$CRFPIPE" model dump "$tmp/c.model" | grep '^[UB]	' | cmp -s - "$tmp/scale.w" ||
    fail "the cell 'y\\*0.5' trained other weights than the CRFsuite attribute y:0.5"
# a value that is not a number, a value without a name, a value on an
# attribute that is also a label-pair observation (bigram=all)
printf 'a\tA\n\nx y\\*z\tA\n\n' >"$tmp/bad.tsv"
expect_fail "sentence 2: features: attributes: token 1: attribute 'y\\\\\*z': '\\\\\*' must be followed by its value" "$CRFPIPE" train \
    $opts --format conll --columns attrs,label --reader-param separator=tab --model "$tmp/c.model" "$tmp/bad.tsv"
printf '\\*2\tA\n\n' >"$tmp/bad.tsv"
expect_fail "has a value but no name" "$CRFPIPE" train $opts --format conll --reader-param separator=tab \
    --columns attrs,label --model "$tmp/c.model" "$tmp/bad.tsv"
# @weight:W weighs the sequence it is in or begins (its Sentence's `weight`
# feature), the last one read winning; one before a blank line weighs
# nothing; a weight out of [0, 1e9] or no number is refused with the line
printf 'A\tx\n\n@weight:2\nA\tx\n\nB\ty\n@weight:0.25\n@weight:0\n\n@weight:5\n\nA\tx\n' \
    >"$tmp/d.crfsuite"
"$CRFPIPE" convert --to xml -o "$tmp/d.xml" "$tmp/d.crfsuite" || fail "convert weighted data"
w=$(awk '/type="Sentence"/ { s++ } /name="weight"/ { sub(/.*">/, ""); sub(/<.*/, "");
          printf "%s%d:%s", n++ ? " " : "", s, $0 }' "$tmp/d.xml")
[ "$w" = "2:2 3:0" ] || fail "weighted data: Sentence weights '$w', not '2:2 3:0'"
# the weight of a Sentence in XML: text or a number, an error naming the
# document and sentence when it is none in range
sed 's|<f name="weight" type="float">2</f>|<f name="weight">1e-3</f>|' "$tmp/d.xml" >"$tmp/d1.xml"
"$CRFPIPE" -q train $opts --model "$tmp/x.model" "$tmp/d1.xml" || fail "a weight given as text"
sed 's|<f name="weight" type="float">2</f>|<f name="weight">much</f>|' "$tmp/d.xml" >"$tmp/d2.xml"
expect_fail "sentence 2: weight 'much' is not a number from 0 to 1e+09" \
    "$CRFPIPE" train $opts --model "$tmp/x.model" "$tmp/d2.xml"
sed 's|<f name="weight" type="float">2</f>|<f name="w" type="int">-2</f>|' "$tmp/d.xml" >"$tmp/d3.xml"
expect_fail "sentence 2: w '-2' is not a number" \
    "$CRFPIPE" train $opts --weight-feature w --model "$tmp/x.model" "$tmp/d3.xml"
"$CRFPIPE" -q train $opts --model "$tmp/x.model" "$tmp/d3.xml" || fail "--weight-feature weight"
for w in -1 1e10 nan 2x; do
    printf 'A\tx\n@weight:%s\n\n' "$w" >"$tmp/d.crfsuite"
    expect_fail "d.crfsuite:2: '@weight:$w': a sequence's weight is a number from 0 to 1e+09" \
        "$CRFPIPE" train $opts --model "$tmp/x.model" "$tmp/d.crfsuite"
done
# labels are read as CRFsuite reads them: "\:" and "\\" undone, and a
# colon not escaped starts a value it ignores (said once, with the line)
printf 'B\\:X\tw=a\nB:Y\tw=b\nC\\\\d\tw=c\n\n' >"$tmp/lab.crfsuite"
"$CRFPIPE" convert --to conll --columns attrs,label -o "$tmp/lab.conll" "$tmp/lab.crfsuite" \
    2>"$tmp/log" || fail "convert labels with colons"
[ "$(cut -d' ' -f2 "$tmp/lab.conll" | tr '\n' '|')" = 'B:X|B|C\d||' ] ||
    fail "labels not read as CRFsuite reads them: $(tr '\n' '|' <"$tmp/lab.conll")"
grep -q "lab.crfsuite:2: the label 'B:Y' is read as 'B', as CRFsuite reads it" "$tmp/log" ||
    fail "no warning for the label cut at its colon: $(cat "$tmp/log")"
printf '@weight:1\nA\tx\nB\ty\n' >"$tmp/d.crfsuite"
"$CRFPIPE" -q train $opts --model "$tmp/x.model" "$tmp/d.crfsuite" || fail "@weight:1"
printf 'A\tx\n@group:1\n' >"$tmp/d.crfsuite"
expect_fail "d.crfsuite:2: unknown declaration '@group:1'" \
    "$CRFPIPE" train $opts --model "$tmp/x.model" "$tmp/d.crfsuite"
# the first colon not escaped starts the weight, as in CRFsuite
printf 'A\ttime=10:30\n' >"$tmp/c.crfsuite"
expect_fail "c.crfsuite:1: attribute 'time=10' has weight 30" \
    "$CRFPIPE" train $opts --reader-param weights=error --model "$tmp/x.model" "$tmp/c.crfsuite"
printf 'A\tx\n\nB\turl=http://x\n' >"$tmp/c.crfsuite"
expect_fail "c.crfsuite:3: attribute 'url=http://x': the part after its first ':' is not a finite number" \
    "$CRFPIPE" train $opts --model "$tmp/x.model" "$tmp/c.crfsuite"
expect_fail "or --features attributes" "$CRFPIPE" train --model "$tmp/x.model" "$tmp/train.crfsuite"
finish
