#!/bin/sh
# A CRFsuite model (tests/data/crfsuite-model, made by CRFsuite 0.12: see
# its make.sh; and tests/data/crfsuite-valued, whose attributes have values
# of either sign and 0) imported with `crfpipe model import` tags CRFsuite's
# test data as `crfsuite tag -p -i` did: the same label for every token,
# the same marginal of each predicted label and the same probability of
# each sequence (to CRFsuite's 6 printed decimals); Wapiti's and CRF++'s
# models are named as such.  Trained on the same data
# with CRFsuite's model family (--all-states false --all-transitions false)
# and penalty, crfpipe reaches CRFsuite's optimum, values or not, with
# L-BFGS and (values) Newton-CG, and with --min-freq it keeps CRFsuite's
# features of feature.minfreq and reaches that optimum too (plain, valued
# and weighted data).  A CRFsuite model given where
# a crfpipe one is expected says how to import it; truncated or corrupted
# model files are refused with what is wrong, exit 1 and no output.
. "$top_srcdir/tests/pipeline/common.sh"
d="$top_srcdir/tests/data/crfsuite-model"

# same_as_crfsuite DIR: the import of DIR/model.crfsuite tags DIR/test.crfsuite
# as DIR/expected.txt says, and crfpipe trained on DIR/train.crfsuite with
# CRFsuite's model family and penalty reaches the optimum of DIR/loss.txt
# with CRFsuite's features and weights.  Leaves $tmp/m.model (the import),
# $tmp/seen.model and $tmp/w.cs.keys (CRFsuite's features).
weights() { # model: KIND|OBS|(PREV|)LABEL TAB WEIGHT, sorted
    "$CRFPIPE" model dump "$1" | awk -F'\t' '$1 == "U" || $1 == "B" {
        k = $1 "|" $2 "|" $3; if (NF == 5) k = k "|" $4; print k "\t" $NF }' | LC_ALL=C sort
}
same_as_crfsuite() {
d=$1
echo "== $d"
"$CRFPIPE" model import "$d/model.crfsuite" -o "$tmp/m.model" 2>"$tmp/log" ||
    { cat "$tmp/log"; fail "model import"; }
grep -q "imported from" "$tmp/log" || fail "no summary of the import"
"$CRFPIPE" model dump "$tmp/m.model" | grep -q "^meta	trainer	crfsuite$" || fail "no trainer meta"

# expected.txt: "@probability P" per sequence, then LABEL:MARGINAL per token
awk -F: '/^@probability/ { split($0, a, "\t"); print "P", a[2]; next }
         /^@/ { next }
         NF { n = split($0, a, ":"); print "T", substr($0, 1, length($0) - length(a[n]) - 1), a[n] }' \
    "$d/expected.txt" >"$tmp/want"
"$CRFPIPE" tag --model "$tmp/m.model" --posteriors --to xml -o "$tmp/out.xml" "$d/test.crfsuite" ||
    fail "tag the CRFsuite data to XML"
"$CRFPIPE" tag --model "$tmp/m.model" --posteriors --to conll -o "$tmp/out.conll" \
    "$d/test.crfsuite" 2>/dev/null || fail "tag the CRFsuite data to columns"
# the same from crfpipe: each sentence's probability (XML, in order), then
# its tokens' predicted label and marginal (columns: ... prob gold predicted)
per_sentence "$tmp/out.xml" predicted-seqprob "$tmp/out.conll" '$NF, $(NF - 2)' >"$tmp/got"
[ "$(grep -c '^P' "$tmp/want")" = 40 ] && [ "$(grep -c '^T' "$tmp/want")" -gt 500 ] ||
    fail "expected.txt does not hold 40 sequences"
[ "$(wc -l <"$tmp/got")" = "$(wc -l <"$tmp/want")" ] ||
    fail "crfpipe gave $(wc -l <"$tmp/got") lines, CRFsuite $(wc -l <"$tmp/want")"
paste -d ' ' "$tmp/want" "$tmp/got" | awk '
    $1 == "P" { if ($3 != "P" || ($2 - $4) ^ 2 > 1e-12) { bad++; if (bad < 5) print "sequence:", $0 } next }
    { if ($4 != "T" || $2 != $5 || ($3 - $6) ^ 2 > 1e-12) { bad++; if (bad < 5) print "token:", $0 } ; toks++ }
    END { printf "%d tokens: CRFsuite'"'"'s labels, marginals and sequence probabilities\n", toks; exit bad > 0 }' ||
    fail "the imported model does not tag as CRFsuite did"
# in CRFsuite's own output, byte for byte: crfsuite tag -p -i
# (expected.txt), and -r -i -l (expected-all.txt: the gold label, then
# every label's marginal in CRFsuite's label order)
"$CRFPIPE" tag --model "$tmp/m.model" --scores true --posteriors --writer-param probability=true \
    --writer-param marginal=true --writer-param reference=false -o "$tmp/pi.txt" \
    "$d/test.crfsuite" 2>"$tmp/log" || { cat "$tmp/log"; fail "tag as crfsuite tag -p -i"; }
cmp -s "$tmp/pi.txt" "$d/expected.txt" ||
    { diff "$tmp/pi.txt" "$d/expected.txt" | head -5; fail "not what crfsuite tag -p -i printed"; }
"$CRFPIPE" tag --model "$tmp/m.model" --posteriors --marginals 1000 --marginals-order label \
    --writer-param marginal=true --writer-param marginal-all=true -o "$tmp/ril.txt" \
    "$d/test.crfsuite" 2>"$tmp/log" || { cat "$tmp/log"; fail "tag as crfsuite tag -r -i -l"; }
! grep -q "not written" "$tmp/log" || { cat "$tmp/log"; fail "-r -i -l: results said not written"; }
cmp -s "$tmp/ril.txt" "$d/expected-all.txt" ||
    { diff "$tmp/ril.txt" "$d/expected-all.txt" | head -5; fail "not what crfsuite tag -r -i -l printed"; }
echo "crfsuite tag -p -i and -r -i -l: $(wc -l <"$d/expected.txt") and \
$(wc -l <"$d/expected-all.txt") lines, byte for byte"
# a result asked of the writer that the tagger did not give: an error
# naming the sentence or token and the option that gives it
expect_fail "scores true --posteriors gives" "$CRFPIPE" tag --model "$tmp/m.model" --posteriors \
    --writer-param probability=true "$d/test.crfsuite"
expect_fail "token 1: marginal=true.*--posteriors gives" "$CRFPIPE" tag --model "$tmp/m.model" \
    --writer-param marginal=true "$d/test.crfsuite"
expect_fail "marginals-order label gives" "$CRFPIPE" tag --model "$tmp/m.model" \
    --writer-param marginal-all=true "$d/test.crfsuite"

# CRFsuite's model family: weights only for the label pairs the training
# data shows (--all-states false --all-transitions false), and CRFsuite's
# penalty (c2 = 1 is --rho2 2).  Trained to convergence on the very data
# CRFsuite trained model.crfsuite on, crfpipe must reach CRFsuite's optimum:
# the same objective (loss.txt), the same features, the same weights to
# the optimizers' tolerance.
"$CRFPIPE" train --features attributes --rho2 2 --all-states false --all-transitions false \
    --epsilon 1e-10 --model "$tmp/seen.model" "$d/train.crfsuite" 2>"$tmp/seen.log" ||
    { cat "$tmp/seen.log"; fail "train with seen pairs only"; }
f=$(sed -n 's/.*F = \([0-9.e+-]*\).*/\1/p' "$tmp/seen.log" | tail -n 1)
loss=$(sed -n 's/^Loss: *//p' "$d/loss.txt")
echo "objective at the optimum: crfpipe $f, CRFsuite $loss"
awk -v a="$f" -v b="$loss" 'BEGIN { d = a - b; exit !(b > 0 && d * d < (1e-6 * b) ^ 2) }' ||
    fail "crfpipe's optimum $f is not CRFsuite's $loss"
weights "$tmp/seen.model" >"$tmp/w.seen"
weights "$tmp/m.model" >"$tmp/w.cs"
cut -f1 "$tmp/w.cs" | LC_ALL=C sort >"$tmp/w.cs.keys"
cut -f1 "$tmp/w.seen" | LC_ALL=C sort | cmp -s - "$tmp/w.cs.keys" ||
    fail "crfpipe's non-zero features are not CRFsuite's ($(wc -l <"$tmp/w.seen") vs $(wc -l <"$tmp/w.cs"))"
paste "$tmp/w.seen" "$tmp/w.cs" | awk -F'\t' '{ d = $2 - $4; if (d < 0) d = -d; if (d > m) m = d; n++ }
    END { printf "%d features, the largest weight difference from CRFsuite %.2g\n", n, m; exit !(n > 1000 && m < 1e-3) }' ||
    fail "crfpipe's weights are not CRFsuite's"
}
# every trainer honours them: no weight outside CRFsuite's features (bcd
# once crashed on a frozen weight when asked for a block's loss alone), with
# values too (the perceptrons' and bcd's updates scale by them)
every_trainer() {
for tr in sgd-l1 perceptron bcd newton-cg rprop; do
    "$CRFPIPE" -q train --features attributes --trainer "$tr" --rho1 0 --all-states false \
        --all-transitions false --max-iter 3 --model "$tmp/$tr.model" "$d/train.crfsuite" \
        2>"$tmp/$tr.log" || { cat "$tmp/$tr.log"; fail "$tr with seen pairs only"; continue; }
    n=$(weights "$tmp/$tr.model" | cut -f1 | LC_ALL=C sort | LC_ALL=C comm -23 - "$tmp/w.cs.keys" |
        wc -l)
    [ "$n" = 0 ] || fail "$tr: $n weights on label pairs the training data does not show ($d)"
    [ "$(weights "$tmp/$tr.model" | wc -l)" -gt 500 ] || fail "$tr: hardly any weight trained ($d)"
done
}
same_as_crfsuite "$top_srcdir/tests/data/crfsuite-valued"
every_trainer
# attribute values scale the features in every product the trainers use:
# Newton-CG (Hessian-vector products) reaches the same optimum
"$CRFPIPE" train --features attributes --trainer newton-cg --rho2 2 --all-states false \
    --all-transitions false --epsilon 1e-9 --max-iter 200 --model "$tmp/ncg.model" \
    "$d/train.crfsuite" 2>"$tmp/ncg.log" || { cat "$tmp/ncg.log"; fail "newton-cg on values"; }
f=$(sed -n 's/.*F = \([0-9.e+-]*\).*/\1/p' "$tmp/ncg.log" | tail -n 1)
echo "newton-cg with values: $f, CRFsuite $loss"
awk -v a="$f" -v b="$loss" 'BEGIN { d = a - b; exit !(b > 0 && d * d < (1e-6 * b) ^ 2) }' ||
    fail "newton-cg's optimum $f with values is not CRFsuite's $loss"
same_as_crfsuite "$top_srcdir/tests/data/crfsuite-model"
every_trainer
unweighted=$loss

# Sequence weights (tests/data/crfsuite-weighted: the same data, weighed by
# CRFsuite's @weight:W, 0 and fractions among them): crfpipe reaches
# CRFsuite's weighted optimum with L-BFGS, and so do Newton-CG (weighted
# Hessian products), bcd with exact block statistics (weighted gradients
# and curvatures) and rprop; --weight-feature '' trains the unweighted
# optimum of tests/data/crfsuite-model.
same_as_crfsuite "$top_srcdir/tests/data/crfsuite-weighted"
dw=$d
d=$top_srcdir/tests/data/crfsuite-model
at_optimum() { # what log want
    f=$(sed -n 's/.*F = \([0-9.e+-]*\).*/\1/p' "$2" | tail -n 1)
    echo "$1: $f, CRFsuite $3"
    awk -v a="$f" -v b="$3" 'BEGIN { d = a - b; exit !(b > 0 && d * d < (1e-6 * b) ^ 2) }' ||
        fail "$1: the optimum $f is not CRFsuite's $3"
}
cs_family="--features attributes --rho2 2 --all-states false --all-transitions false"
"$CRFPIPE" train $cs_family --trainer newton-cg --epsilon 1e-9 --max-iter 200 \
    --model "$tmp/wn.model" "$dw/train.crfsuite" 2>"$tmp/wn.log" ||
    { cat "$tmp/wn.log"; fail "newton-cg, weighted"; }
at_optimum "newton-cg, weighted" "$tmp/wn.log" "$loss"
"$CRFPIPE" train $cs_family --trainer bcd --radius 0 --epsilon 1e-8 --max-sweeps 300 \
    --model "$tmp/wb.model" "$dw/train.crfsuite" 2>"$tmp/wb.log" ||
    { cat "$tmp/wb.log"; fail "bcd, weighted"; }
at_optimum "bcd, weighted" "$tmp/wb.log" "$loss"
"$CRFPIPE" train $cs_family --trainer rprop --epsilon 0 --max-iter 2000 \
    --model "$tmp/wr.model" "$dw/train.crfsuite" 2>"$tmp/wr.log" ||
    { cat "$tmp/wr.log"; fail "rprop, weighted"; }
at_optimum "rprop, weighted" "$tmp/wr.log" "$loss"
"$CRFPIPE" train $cs_family --weight-feature '' --epsilon 1e-10 --model "$tmp/wu.model" \
    "$dw/train.crfsuite" 2>"$tmp/wu.log" || { cat "$tmp/wu.log"; fail "--weight-feature ''"; }
at_optimum "--weight-feature '' (unweighted)" "$tmp/wu.log" "$unweighted"
# the averaged perceptron's updates scale by the weight, and decoding does
# not see a common scale: every sequence weighing 2 trains exactly twice
# the weights of the unweighted run (the same updates, doubled)
awk 'NF && !open_ { print "@weight:2" } { open_ = NF > 0; print }' "$d/train.crfsuite" \
    >"$tmp/w2.crfsuite"
for x in w2 w1; do
    f=$tmp/w2.crfsuite
    [ "$x" = w1 ] && f=$d/train.crfsuite
    "$CRFPIPE" -q train --features attributes --trainer perceptron --max-iter 4 --threads 1 \
        --model "$tmp/$x.p.model" "$f" || fail "perceptron on $x"
    weights "$tmp/$x.p.model" >"$tmp/$x.p.w"
done
[ "$(wc -l <"$tmp/w1.p.w")" -gt 500 ] || fail "the perceptron trained hardly any weight"
paste "$tmp/w1.p.w" "$tmp/w2.p.w" | awk -F'\t' '$1 != $3 || 2 * $2 != $4 { bad++ }
    END { printf "perceptron, every sequence weighing 2: %d weights, %d not doubled\n", NR, bad
          exit bad > 0 }' || fail "the perceptron's weights are not doubled by @weight:2"

# CRFsuite's feature.minfreq: in its model family --min-freq F keeps the
# label pairs whose values times their sequences' weights sum to F or more
# (negative sums cut by F = 0, CRFsuite's default).  Per DIR/minfreq.txt
# ("F FEATURES LOSS", from CRFsuite), crfpipe keeps as many pairs and
# reaches the same optimum, plain, valued and weighted; for the valued
# data at F = 1.5 with CRFsuite's features and weights.
for dir in crfsuite-model crfsuite-valued crfsuite-weighted; do
    while read -r mf nfeat want; do
        "$CRFPIPE" train $cs_family --epsilon 1e-10 --min-freq "$mf" --model "$tmp/mf.model" \
            "$top_srcdir/tests/data/$dir/train.crfsuite" 2>"$tmp/mf.log" ||
            { cat "$tmp/mf.log"; fail "$dir: min-freq $mf"; }
        grep -q ": $nfeat of [0-9]* weights on label pairs the training data shows often enough (min-freq $mf," \
            "$tmp/mf.log" || { grep 'label pairs' "$tmp/mf.log" >&2; fail "$dir: min-freq $mf: not CRFsuite's $nfeat features"; }
        at_optimum "$dir, min-freq $mf ($nfeat features)" "$tmp/mf.log" "$want"
    done <"$top_srcdir/tests/data/$dir/minfreq.txt"
done
"$CRFPIPE" -q model import "$top_srcdir/tests/data/crfsuite-valued/model-minfreq.crfsuite" \
    -o "$tmp/mfcs.model" || fail "import the min-freq model"
"$CRFPIPE" -q train $cs_family --epsilon 1e-10 --min-freq 1.5 --model "$tmp/mf.model" \
    "$top_srcdir/tests/data/crfsuite-valued/train.crfsuite" || fail "min-freq 1.5, valued"
weights "$tmp/mf.model" >"$tmp/w.mf"
weights "$tmp/mfcs.model" >"$tmp/w.mfcs"
cut -f1 "$tmp/w.mfcs" >"$tmp/w.mfcs.keys"
cut -f1 "$tmp/w.mf" | cmp -s - "$tmp/w.mfcs.keys" ||
    fail "min-freq 1.5: not CRFsuite's features ($(wc -l <"$tmp/w.mf") vs $(wc -l <"$tmp/w.mfcs"))"
paste "$tmp/w.mf" "$tmp/w.mfcs" | awk -F'\t' '{ d = $2 - $4; if (d < 0) d = -d; if (d > m) m = d; n++ }
    END { printf "min-freq 1.5: %d features, the largest weight difference from CRFsuite %.2g\n", n, m
          exit !(n > 1000 && m < 1e-3) }' || fail "min-freq 1.5: not CRFsuite's weights"

# and without the options every label and pair gets a weight
"$CRFPIPE" -q train --features attributes --rho2 2 --max-iter 5 --model "$tmp/all.model" \
    "$d/train.crfsuite" || fail "train with all pairs"
[ "$(weights "$tmp/all.model" | wc -l)" -gt "$((5 * $(wc -l <"$tmp/w.seen")))" ] ||
    fail "all pairs: not five times the weights of the seen pairs"

# model export: crfpipe's model of CRFsuite's family as a CRFsuite model
# file.  Imported back it is the same model, weight for weight (the import
# checks that the hash index of its string tables finds every label and
# attribute, the index CRFsuite looks them up by; the same check passes on
# the files CRFsuite wrote, which validates the hash); with CRFsuite at
# hand (not in CI) `crfsuite tag` labels with it as crfpipe does.
"$CRFPIPE" model export "$tmp/seen.model" -o "$tmp/seen.crfsuite" 2>"$tmp/log" ||
    { cat "$tmp/log"; fail "model export"; }
"$CRFPIPE" model import "$tmp/seen.crfsuite" -o "$tmp/back.model" 2>"$tmp/log" ||
    { cat "$tmp/log"; fail "import of the exported model"; }
weights "$tmp/back.model" | cmp -s - "$tmp/w.seen" ||
    fail "the exported model, imported back, has other weights"
"$CRFPIPE" tag --model "$tmp/seen.model" -o "$tmp/t1" "$d/test.crfsuite" || fail "tag (seen)"
"$CRFPIPE" tag --model "$tmp/back.model" -o "$tmp/t2" "$d/test.crfsuite" || fail "tag (back)"
cmp -s "$tmp/t1" "$tmp/t2" || fail "the exported model, imported back, tags otherwise"
if command -v crfsuite >/dev/null 2>&1; then
    crfsuite tag -m "$tmp/seen.crfsuite" "$d/test.crfsuite" >"$tmp/t3" || fail "crfsuite tag"
    awk -F'\t' '{ print NF ? $NF : "" }' "$tmp/t1" | cmp -s - "$tmp/t3" ||
        fail "crfsuite tags otherwise with the exported model"
else
    echo "crfsuite not installed: the exported model is not tagged by CRFsuite itself"
fi
# the input given as the output (it would be lost) is refused
cp "$tmp/seen.model" "$tmp/same.model"
expect_fail "the input model itself" "$CRFPIPE" model export "$tmp/same.model" -o "$tmp/same.model"
cmp -s "$tmp/same.model" "$tmp/seen.model" || fail "export -o the input changed it"
cp "$tmp/seen.crfsuite" "$tmp/same.crfsuite"
expect_fail "the input model itself" "$CRFPIPE" model import "$tmp/same.crfsuite" \
    -o "$tmp/./same.crfsuite"
cmp -s "$tmp/same.crfsuite" "$tmp/seen.crfsuite" || fail "import -o the input changed it"
# what CRFsuite's model cannot hold is refused, and nothing is written
rm -f "$tmp/x.crfsuite"
expect_fail "start weights .*--all-transitions false" \
    "$CRFPIPE" model export "$tmp/all.model" -o "$tmp/x.crfsuite"
[ -e "$tmp/x.crfsuite" ] && fail "a file was written for a model with start weights"
"$CRFPIPE" -q train --template "$top_srcdir/tests/pipeline/tiny.tpl" --columns form,label \
    --max-iter 3 --model "$tmp/tpl.model" "$top_srcdir/tests/fault/tiny.conll" ||
    fail "train a template model"
expect_fail "a model of the templates features plugin" \
    "$CRFPIPE" model export "$tmp/tpl.model" -o "$tmp/x.crfsuite"
[ -e "$tmp/x.crfsuite" ] && fail "a file was written for a template model"

# eval --model scores the gold of CRFsuite data against the imported model
"$CRFPIPE" eval --model "$tmp/m.model" "$d/test.crfsuite" | grep -q "^token accuracy" ||
    fail "eval --model with the imported model"

# a CRFsuite model where crfpipe's is expected
expect_fail "model import" "$CRFPIPE" tag --model "$d/model.crfsuite" "$d/test.crfsuite"
expect_fail "model import" "$CRFPIPE" model info "$d/model.crfsuite"
# Wapiti's and CRF++'s models (their headers) are named, with the import to do
printf '#mdl#2#1\n#rdr#2/0/0\n11:u:w=%%x[0,0],\n1:b,\n' >"$tmp/w.mod"
expect_fail "a Wapiti model" "$CRFPIPE" model info "$tmp/w.mod"
printf 'version: 100\ncost-factor: 1\nmaxid: 4\nxsize: 1\n\n' >"$tmp/crfpp.txt"
expect_fail "a CRF++ model, not a crfpipe one" "$CRFPIPE" tag --model "$tmp/crfpp.txt" "$d/test.crfsuite"
# files shorter than the head (the magic cut short) are truncated models
printf 'CRFPMODL' >"$tmp/m8"
expect_fail "truncated model file (8 bytes)" "$CRFPIPE" model info "$tmp/m8"

# hostile files: each refused with what is wrong, and no model written
bad() { # what-to-expect file
    rm -f "$tmp/bad.model"
    expect_fail "$1" "$CRFPIPE" model import "$2" -o "$tmp/bad.model"
    if [ -e "$tmp/bad.model" ]; then fail "a model was written from $2"; fi
    if ls "$tmp" | grep -q '\.tmp\.'; then fail "a temporary file was left for $2"; fi
}
size=$(wc -c <"$d/model.crfsuite")
head -c $((size - 100)) "$d/model.crfsuite" >"$tmp/trunc"
bad "the file has" "$tmp/trunc"
head -c 30 "$d/model.crfsuite" >"$tmp/short"
bad "a CRFsuite model cut short: 30 bytes, less than its 48-byte header" "$tmp/short"
bad "not a CRFsuite, Wapiti or CRF++ model" "$d/test.crfsuite"
# a label's bucket in the hash index with another hash: CRFsuite would not
# find the label; the file is corrupted
lab=$(od -An -tu4 -j32 -N4 "$d/model.crfsuite" | tr -d ' ')
cp "$d/model.crfsuite" "$tmp/p"
t=0
while [ "$t" -lt 256 ]; do   # the first non-empty table, its first full bucket
    toff=$(od -An -tu4 -j$((lab + 24 + 8 * t)) -N4 "$d/model.crfsuite" | tr -d ' ')
    [ "$toff" != 0 ] && break
    t=$((t + 1))
done
k=0
while [ "$(od -An -tu4 -j$((lab + toff + 8 * k + 4)) -N4 "$d/model.crfsuite" | tr -d ' ')" = 0 ]; do
    k=$((k + 1))
done
printf '\377\377\377\377' | dd of="$tmp/p" bs=1 seek=$((lab + toff + 8 * k)) conv=notrunc 2>/dev/null
bad "the label table's hash index does not find label" "$tmp/p"
# patch(file, offset, 4 bytes little-endian value): a copy with one field changed
patch() {
    cp "$d/model.crfsuite" "$tmp/p"
    printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($2 & 255)) $(($2 >> 8 & 255)) $(($2 >> 16 & 255)) $(($2 >> 24 & 255)))" |
        dd of="$tmp/p" bs=1 seek="$1" conv=notrunc 2>/dev/null
}
patch 12 101; bad "version 101" "$tmp/p"
patch 20 0; bad "without labels" "$tmp/p"
patch 20 70000; bad "labels" "$tmp/p"
patch 28 "$size"; bad "no FEAT chunk" "$tmp/p"
patch 32 7; bad "label table" "$tmp/p"
patch 36 "$((size - 8))"; bad "attribute table" "$tmp/p"
# the FEAT chunk's count, and its first feature's type, ids and weight
feat=$(od -An -tu4 -j28 -N4 "$d/model.crfsuite" | tr -d ' ')
patch $((feat + 8)) 999999999; bad "run past the end" "$tmp/p"
patch $((feat + 12)) 7; bad "feature 0: a type" "$tmp/p"
patch $((feat + 20)) 4000000; bad "feature 0: a" "$tmp/p"
# a NaN weight: exponent all ones, mantissa non-zero
cp "$d/model.crfsuite" "$tmp/p"
printf '\001\000\000\000\000\000\370\177' | dd of="$tmp/p" bs=1 seek=$((feat + 24)) conv=notrunc 2>/dev/null
bad "not a finite number" "$tmp/p"
# a label id the label table has no record for
lab=$(od -An -tu4 -j32 -N4 "$d/model.crfsuite" | tr -d ' ')
bwd=$(od -An -tu4 -j$((lab + 20)) -N4 "$d/model.crfsuite" | tr -d ' ')
patch $((lab + bwd)) 0; bad "label table" "$tmp/p"
# a model-labels limit below the model's
expect_fail "limit" "$CRFPIPE" --limit model-labels=3 model import "$d/model.crfsuite" -o "$tmp/l.model"
finish
