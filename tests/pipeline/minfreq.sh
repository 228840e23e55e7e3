#!/bin/sh
# crfpipe train --min-freq N (CRF++'s -f; CRFsuite's feature.minfreq, which
# counts label pairs in CRFsuite's model family, in crfsuite_model.sh): the
# model's observations are exactly those seen at N positions or more of the
# training data, counted by awk from the corpus, for unigram patterns and
# for `*` patterns (an observation in both lists counted once per
# position); N = 1 (or less) changes nothing; a warm start's observations are kept
# whatever their count; a dev set works; bad values are refused.  (The
# folds of --cv-folds apply it to their own sentences: tests/pipeline/cv.sh.)
. "$top_srcdir/tests/pipeline/common.sh"
pos="$top_srcdir/samples/pos"
awk 'NR > 3000 && /^$/ { print; exit } { print }' "$pos/train.conllu" >"$tmp/train.conllu"
awk 'NR > 600 && /^$/ { print; exit } { print }' "$pos/dev.conllu" >"$tmp/dev.conllu"
base="--label upos --threads 1 --max-iter 30"

# the words (FORM of the token lines; not multiword ranges nor empty nodes)
# seen N times or more, as the observations U00:WORD
frequent() {
    awk -F '\t' -v n="$1" -v p="$2" '$1 ~ /^[0-9]+$/ { c[$2]++ }
        END { for (w in c) if (c[w] >= n) print p ":" w }' "$tmp/train.conllu" | sort
}
observations() { # MODEL KIND: the observations with weights of that kind
    "$CRFPIPE" model dump "$1" | awk -F '\t' -v k="$2" '$1 == k && NF >= 4 { print $2 }' | sort -u
}
printf 'U00:%%x[0,form]\nB\n' >"$tmp/u.tpl"
printf '*00:%%x[0,form]\n' >"$tmp/star.tpl"

for n in 2 3; do
    "$CRFPIPE" -q train $base --template "$tmp/u.tpl" --min-freq $n --model "$tmp/u$n" \
        "$tmp/train.conllu" || fail "train --min-freq $n"
    frequent $n U00 >"$tmp/want"
    observations "$tmp/u$n" U >"$tmp/got"
    [ "$(wc -l <"$tmp/want")" -gt 20 ] || fail "too few words seen $n times"
    cmp -s "$tmp/want" "$tmp/got" ||
        { fail "min-freq $n: the unigram observations are not the words seen $n times"; diff "$tmp/want" "$tmp/got" | head -5 >&2; }
    [ "$(observations "$tmp/u$n" B)" = B ] || fail "min-freq $n: the label bigram is gone"
    # a * pattern's observation is counted once per position, not twice
    "$CRFPIPE" -q train $base --template "$tmp/star.tpl" --min-freq $n --model "$tmp/s$n" \
        "$tmp/train.conllu" || fail "train a * template --min-freq $n"
    frequent $n '*00' >"$tmp/want"
    observations "$tmp/s$n" U >"$tmp/got"
    cmp -s "$tmp/want" "$tmp/got" || fail "min-freq $n, * pattern: unigram observations differ"
    observations "$tmp/s$n" B >"$tmp/got"
    cmp -s "$tmp/want" "$tmp/got" || fail "min-freq $n, * pattern: bigram observations differ"
done

# 1 (and 0, and below) change nothing
"$CRFPIPE" -q train $base --template "$tmp/u.tpl" --model "$tmp/plain" "$tmp/train.conllu" ||
    fail "train"
for n in 0 1 -2 0.5; do
    "$CRFPIPE" -q train $base --template "$tmp/u.tpl" --min-freq $n --model "$tmp/one" \
        "$tmp/train.conllu" || fail "train --min-freq $n"
    cmp -s "$tmp/plain" "$tmp/one" || fail "--min-freq $n changed the model"
done
n_all=$("$CRFPIPE" model info "$tmp/plain" | awk -F '\t' '$1 == "observations" { print $2 }')

# a warm start keeps its observations, however rare
"$CRFPIPE" -q train $base --template "$tmp/u.tpl" --init-model "$tmp/plain" --min-freq 1000 \
    --max-iter 3 --model "$tmp/warm" "$tmp/train.conllu" || fail "train --init-model --min-freq"
n_warm=$("$CRFPIPE" model info "$tmp/warm" | awk -F '\t' '$1 == "observations" { print $2 }')
[ "$n_warm" = "$n_all" ] || fail "a warm start lost observations: $n_warm of $n_all"

# with a dev set: the dev sentences lose the dropped observations too
"$CRFPIPE" train $base --template "$tmp/u.tpl" --min-freq 2 --dev "$tmp/dev.conllu" \
    --model "$tmp/dev.model" "$tmp/train.conllu" 2>"$tmp/log" || { fail "train --dev --min-freq"; cat "$tmp/log" >&2; }
# the frequent words and the label bigram B
grep -q "min-freq 2: $(($(frequent 2 U00 | wc -l) + 1)) of $n_all observations" "$tmp/log" ||
    { fail "no min-freq line in the log"; cat "$tmp/log" >&2; }
grep -q "dev-err" "$tmp/log" || fail "the dev set was not scored"
"$CRFPIPE" eval --model "$tmp/dev.model" "$tmp/dev.conllu" >/dev/null || fail "eval of the min-freq model"

# a cut of everything trains nothing, and says so
"$CRFPIPE" train $base --template "$tmp/u.tpl" --min-freq 1e9 --model "$tmp/none" \
    "$tmp/train.conllu" 2>"$tmp/log" || fail "train --min-freq 1e9"
grep -q "warning: the model has no weight to train (min-freq cut every observation" "$tmp/log" ||
    { cat "$tmp/log" >&2; fail "no warning for a model with nothing to train"; }
expect_fail "min-freq" "$CRFPIPE" train $base --template "$tmp/u.tpl" --min-freq two \
    --model "$tmp/x" "$tmp/train.conllu"
finish
