#!/bin/sh
# Each token's label distribution (tag --marginals), span probabilities,
# where a tagger's extra outputs go in a column file, what eval makes of
# tagged files (columns, and CoNLL-U tagged for two labels), and the label
# a CoNLL-U corpus trains by default.
. "$top_srcdir/tests/pipeline/common.sh"
pos="$top_srcdir/samples/pos"
tpl="$top_srcdir/tests/pipeline/tiny.tpl"
awk 'NR > 3000 && /^$/ { print; exit } { print }' "$pos/train.conllu" >"$tmp/train.conllu"
awk 'NR > 1500 && /^$/ { print; exit } { print }' "$pos/test.conllu" >"$tmp/test.conllu"

# 1. A CoNLL-U corpus learns UPOS when no --label is given (its last
# column, MISC, is no label): the same model, byte for byte.
"$CRFPIPE" -q train --template "$tpl" --threads 1 --max-iter 30 \
    --model "$tmp/def.model" "$tmp/train.conllu" || fail "train without --label"
"$CRFPIPE" -q train --template "$tpl" --threads 1 --max-iter 30 --label upos \
    --model "$tmp/a.model" "$tmp/train.conllu" || fail "train --label upos"
cmp -s "$tmp/def.model" "$tmp/a.model" || fail "the default label of CoNLL-U is not upos"
"$CRFPIPE" model info "$tmp/a.model" >"$tmp/info.txt" || fail "model info"
Y=$(awk -F'\t' '$1 == "labels" { print $2 }' "$tmp/info.txt")
[ "${Y:-0}" -ge 10 ] || fail "expected the UPOS labels, got $Y"

# 2. --marginals N: every label (N above the label count) ranked, each
# LABEL/PROBABILITY; they are distinct, in descending order, sum to 1,
# and the predicted label's entry is its --posteriors probability.
# Columns: 10 of CoNLL-U, the probability, Y marginals, the prediction.
for dec in viterbi posterior; do
    "$CRFPIPE" tag --model "$tmp/a.model" --to conll --posteriors --marginals 1000 --decode $dec \
        -o "$tmp/m-$dec.txt" "$tmp/test.conllu" || fail "tag --marginals ($dec)"
    awk -v Y="$Y" -v dec=$dec '
        NF == 0 { next }
        { n++
          if (NF != 10 + 1 + Y + 1) { print "token " n ": " NF " columns, expected " 12 + Y; bad = 1; exit }
          pred = $NF; prob = $11; sum = 0; last = 2; delete seen; found = 0
          for (i = 12; i < 12 + Y; i++) {
              k = split($i, a, "/"); lab = a[1]; p = a[k] + 0
              if (lab in seen) { print "token " n ": " lab " twice"; bad = 1 }
              seen[lab] = 1
              if (p > last + 1e-9) { print "token " n ": not in descending order"; bad = 1 }
              last = p; sum += p
              if (lab == pred) { found = 1; if (p != prob + 0) { print "token " n ": " p " vs predicted-prob " prob; bad = 1 } }
          }
          if (!found) { print "token " n ": the prediction is not among the marginals"; bad = 1 }
          if (sum < 1 - Y * 1e-6 || sum > 1 + Y * 1e-6) { print "token " n ": marginals sum to " sum; bad = 1 }
          split($12, a, "/")
          if (dec == "posterior" && a[1] != pred) { print "token " n ": posterior decoding did not take the most probable label"; bad = 1 }
        }
        END { exit bad || n < 1000 }' "$tmp/m-$dec.txt" || fail "marginals ($dec)"
done
# the top N are the first N of the full ranking
"$CRFPIPE" tag --model "$tmp/a.model" --to conll --marginals 3 -o "$tmp/m3.txt" "$tmp/test.conllu" \
    || fail "tag --marginals 3"
awk 'NF { print $12, $13, $14, $NF }' "$tmp/m-viterbi.txt" >"$tmp/top3-all.txt"
awk 'NF { print $11, $12, $13, $NF }' "$tmp/m3.txt" >"$tmp/top3.txt"
cmp -s "$tmp/top3-all.txt" "$tmp/top3.txt" || fail "--marginals 3 is not the head of the full ranking"
grep -q 'name="marginals" value="3"' "$("$CRFPIPE" tag --model "$tmp/a.model" --to xml --marginals 3 \
    -o "$tmp/m3.xml" "$tmp/test.conllu" && echo "$tmp/m3.xml")" || fail "marginals not in the provenance"
"$CRFPIPE" validate "$tmp/m3.xml" >/dev/null || fail "the XML with marginals is not valid"
expect_fail "marginals must be 0 or more" "$CRFPIPE" tag --model "$tmp/a.model" --marginals -1 \
    "$tmp/test.conllu"
# marginals-order=label: the same labels and marginals, listed in the
# model's label order (model dump's "label ID NAME" lines), as CRF++'s -v2
# and crfsuite tag -l list them
"$CRFPIPE" tag --model "$tmp/a.model" --to conll --posteriors --marginals 1000 \
    --marginals-order label -o "$tmp/ml.txt" "$tmp/test.conllu" || fail "tag --marginals-order label"
"$CRFPIPE" model dump "$tmp/a.model" | awk -F'\t' '$1 == "label" && NF == 3 { printf "%s ", $3 }' \
    >"$tmp/order"
awk -v Y="$Y" -v order="$(cat "$tmp/order")" 'NR == FNR { if (NF) { n++; for (i = 12; i < 12 + Y; i++) r[n, $i] = 1 } ; next }
    NF == 0 { next }
    { m++; got = ""
      for (i = 12; i < 12 + Y; i++) { split($i, a, "/"); got = got a[1] " "; if (!((m, $i) in r)) bad = 1 } }
    got != order { print "token " m ": " got "is not the label order " order; bad = 1; exit }
    END { exit bad || m != n || m < 1000 }' "$tmp/m-viterbi.txt" "$tmp/ml.txt" ||
    fail "marginals-order=label: not the ranked marginals in the model's label order"
expect_fail "marginals-order must be rank or label" "$CRFPIPE" tag --model "$tmp/a.model" \
    --marginals 2 --marginals-order alpha "$tmp/test.conllu"
# token-scores: each token's share of its labelling's score.  Under
# Viterbi (and for each of the n best) the shares add up to the labelling's
# score; under posterior decoding they are the tokens' marginals, whose
# product is the labelling's score (Wapiti's convention, which its output
# format shows: "# K SCORE" heads a labelling, LABEL/SHARE ends a line).
for dec in "--nbest 3" "--decode posterior"; do
    "$CRFPIPE" tag --model "$tmp/a.model" $dec --scores true --token-scores true --posteriors \
        --to wapiti -o "$tmp/ts.txt" "$tmp/test.conllu" 2>/dev/null || fail "tag --token-scores ($dec)"
    awk -v post="$([ "$dec" = "--nbest 3" ] && echo 0 || echo 1)" '
        function check() { if (!t) return
            # each printed number is rounded to 6 decimals
            d = post ? (prod - head) / (1e-6 + 1e-4 * head) : (sum - head) / (t * 1e-6)
            if (d < -1 || d > 1) {
                print "labelling " k ": header " head ", tokens " (post ? prod : sum); bad = 1 }
            seqs++ }
        /^# / { check(); k = $2; head = $3; sum = 0; prod = 1; t = 0; next }
        NF { n = split($NF, a, "/"); sum += a[n]; prod *= a[n]; t++
             if (post && (a[n] <= 0 || a[n] > 1)) { print "a marginal of " a[n]; bad = 1 } }
        END { check(); exit bad || seqs < 50 }' "$tmp/ts.txt" ||
        fail "token-scores ($dec): the shares do not make the labelling's score"
done
"$CRFPIPE" tag --model "$tmp/a.model" --nbest 2 --token-scores true --to conll -o "$tmp/tsc.txt" \
    "$tmp/test.conllu" || fail "tag --token-scores to columns"
awk 'NF { if (NF != 10 + 4 || $(NF - 2) !~ /^-?[0-9]+\.[0-9]+$/ || $(NF - 1) !~ /^-?[0-9]+\.[0-9]+$/) bad = 1 }
     END { exit bad || NR < 100 }' "$tmp/tsc.txt" ||
    fail "token-scores to columns: not predicted-2, predicted-score, predicted-2-score, predicted"
# every marginal of a model with more labels than n-best allows entries
# (2,100): the extra outputs' list overflowed a fixed array and crashed
awk 'BEGIN { for (i = 0; i < 2100; i++) printf "w%d L%d\n\n", i, i }' >"$tmp/many.txt"
printf 'U00:%%x[0,0]\n' >"$tmp/many.tpl"
"$CRFPIPE" -q train --template "$tmp/many.tpl" --max-iter 1 --threads 1 --model "$tmp/many.model" \
    "$tmp/many.txt" || fail "train 2,100 labels"
printf 'w1\nw2\n\n' >"$tmp/two.txt"
"$CRFPIPE" tag --model "$tmp/many.model" --columns word --nbest 3 --posteriors --marginals 5000 \
    -o "$tmp/many.out" "$tmp/two.txt" || fail "tag with 2,100 marginals"
awk 'NF && NF != 1 + 2 + 1 + 2100 + 1 { bad = 1 } END { exit bad || NR < 2 }' "$tmp/many.out" \
    || fail "not every marginal of 2,100 labels written"
# a bias whose exp() overflows: probabilities are refused (they came out
# NaN), Viterbi decoding is not
expect_fail "its scores are too large for exp()" "$CRFPIPE" tag --model "$tmp/a.model" \
    --posteriors --label-bias NOUN:5000 "$tmp/test.conllu"
expect_fail "its scores are too large for exp()" "$CRFPIPE" tag --model "$tmp/a.model" \
    --decode posterior --label-bias NOUN:5000 "$tmp/test.conllu"
"$CRFPIPE" tag --model "$tmp/a.model" --label-bias NOUN:5000 "$tmp/test.conllu" >"$tmp/b.out" \
    || fail "Viterbi with a large bias"
awk '/^[0-9]+\t/ { n++; if ($4 != "NOUN") bad = 1 } END { exit bad || !n }' "$tmp/b.out" \
    || fail "a bias of +5000 did not make every token a NOUN"

# 3. A column file tagged with extra outputs keeps the gold label and the
# prediction as its last two columns, so eval (and conlleval) read it as
# they read a plain one.
awk '/^[0-9]+\t/ { print $2, $4; next } /^$/ { print "" }' "$tmp/train.conllu" >"$tmp/train.txt"
awk '/^[0-9]+\t/ { print $2, $4; next } /^$/ { print "" }' "$tmp/test.conllu" >"$tmp/test.txt"
printf 'U00:%%x[-1,0]\nU01:%%x[0,0]\nU02:%%x[1,0]\nB\n' >"$tmp/col.tpl"
"$CRFPIPE" -q train --template "$tmp/col.tpl" --threads 1 --max-iter 20 --model "$tmp/c.model" \
    "$tmp/train.txt" || fail "train on columns"
ref=$("$CRFPIPE" eval --model "$tmp/c.model" "$tmp/test.txt" | sed -n 's/^token accuracy: *\([0-9.]*\)%.*/\1/p')
"$CRFPIPE" tag --model "$tmp/c.model" --nbest 3 --posteriors --marginals 2 -o "$tmp/c-out.txt" \
    "$tmp/test.txt" || fail "tag columns with extras"
awk 'NF { print NF; exit }' "$tmp/c-out.txt" | grep -qx 8 || fail "expected 2 + 2 + 1 + 2 + 1 columns"
got=$("$CRFPIPE" eval "$tmp/c-out.txt" | sed -n 's/^token accuracy: *\([0-9.]*\)%.*/\1/p')
[ -n "$ref" ] && [ "$got" = "$ref" ] || fail "eval of the tagged file ($got) differs from eval --model ($ref)"

# 4. Where the last two columns are not a label and its prediction (a
# CoNLL-U file tagged to columns ends with MISC and the prediction), eval
# refuses rather than report 0 %; named, the columns score as --model does.
"$CRFPIPE" tag --model "$tmp/a.model" --to conll -o "$tmp/u-out.txt" "$tmp/test.conllu" \
    || fail "tag CoNLL-U to columns"
expect_fail "have no label in common" "$CRFPIPE" eval "$tmp/u-out.txt"
ref=$("$CRFPIPE" eval --model "$tmp/a.model" "$tmp/test.conllu" | sed -n 's/^token accuracy: *\([0-9.]*\)%.*/\1/p')
got=$("$CRFPIPE" eval --label col3 "$tmp/u-out.txt" | sed -n 's/^token accuracy: *\([0-9.]*\)%.*/\1/p')
[ -n "$ref" ] && [ "$got" = "$ref" ] || fail "eval --label col3 ($got) differs from eval --model ($ref)"

# 5. CoNLL-U has no column for the extras: the writer says so (once) and
# names them, and writes the rest.
"$CRFPIPE" tag --model "$tmp/a.model" --posteriors --marginals 2 -o "$tmp/u.conllu" \
    "$tmp/test.conllu" 2>"$tmp/u.err" || fail "tag --posteriors to CoNLL-U"
grep -q "CoNLL-U has no column for predicted-prob, predicted-marginal-1, predicted-marginal-2" \
    "$tmp/u.err" || { cat "$tmp/u.err" >&2; fail "no warning about the dropped columns"; }
[ "$(grep -c 'no column' "$tmp/u.err")" -eq 1 ] || fail "the warning is not given once"
"$CRFPIPE" tag --model "$tmp/a.model" -o "$tmp/plain.conllu" "$tmp/test.conllu" 2>"$tmp/p.err" \
    || fail "tag to CoNLL-U"
[ ! -s "$tmp/p.err" ] || { cat "$tmp/p.err" >&2; fail "a plain tagging run warned"; }
cmp -s "$tmp/u.conllu" "$tmp/plain.conllu" || fail "the extras changed the CoNLL-U output"

# 6. With --posteriors each span gets the probability that its tokens carry
# the labels they were given (the engine's segment probability, checked
# against brute force in tests/crf/test_fb): never above any of its
# tokens' own marginal, and equal to it for a one-token span.
printf 'U00:%%x[-1,0]\nU01:%%x[0,0]\nU02:%%x[1,0]\nU03:%%x[0,0]/%%x[1,0]\nB\n' >"$tmp/ner.tpl"
ner="$top_srcdir/samples/ner"
"$CRFPIPE" -q train --template "$tmp/ner.tpl" --threads 1 --max-iter 30 --model "$tmp/ner.model" \
    "$ner/train.conll" || fail "train the entity model"
"$CRFPIPE" tag --model "$tmp/ner.model" --posteriors --to xml -o "$tmp/ner.xml" "$ner/test.conll" \
    || fail "tag entities with --posteriors"
awk '
    /<document / { d++ }
    /<a id=/ { match($0, /type="[^"]*"/); ty = substr($0, RSTART + 6, RLENGTH - 7)
               match($0, /start="[0-9]+"/); st = substr($0, RSTART + 7, RLENGTH - 8) + 0
               match($0, /end="[0-9]+"/); en = substr($0, RSTART + 5, RLENGTH - 6) + 0 }
    /<f name="predicted-prob">/ && ty == "Token" { gsub(/.*">|<.*/, ""); nt++; td[nt] = d; ts[nt] = st; te[nt] = en; tp[nt] = $0 + 0 }
    /<f name="prob">/ && ty == "Chunk" { gsub(/.*">|<.*/, ""); nc++; cd[nc] = d; cs[nc] = st; ce[nc] = en; cp[nc] = $0 + 0 }
    END {
        for (c = 1; c <= nc; c++) {
            k = 0; mn = 2
            for (t = 1; t <= nt; t++)
                if (td[t] == cd[c] && ts[t] >= cs[c] && te[t] <= ce[c]) { k++; if (tp[t] < mn) mn = tp[t] }
            if (k == 0 || cp[c] <= 0 || cp[c] > mn + 1e-6) { print "span " c ": prob " cp[c] ", tokens " k ", lowest marginal " mn; bad = 1 }
            if (k == 1 && (cp[c] - mn > 1e-6 || mn - cp[c] > 1e-6)) { print "one-token span " c ": " cp[c] " vs " mn; bad = 1 }
            if (k > 1) multi++
        }
        print nc " spans, " multi " of several tokens"
        exit bad || nc < 20 || multi < 5 }' "$tmp/ner.xml" || fail "span probabilities"
"$CRFPIPE" tag --model "$tmp/ner.model" --to xml -o "$tmp/ner0.xml" "$ner/test.conll" || fail "tag"
! grep -q '<f name="prob">' "$tmp/ner0.xml" || fail "span probabilities without --posteriors"
# the sentences' results go to their own slots: any number of threads
# writes the same corpus, options and all
for th in 1 3; do
    "$CRFPIPE" tag --model "$tmp/ner.model" --threads $th --posteriors --marginals 3 --nbest 2 \
        --to xml -o "$tmp/ner-t$th.xml" "$ner/test.conll" || fail "tag --threads $th"
done
cmp -s "$tmp/ner-t1.xml" "$tmp/ner-t3.xml" || fail "1 and 3 threads tag differently"
expect_fail "span-feature 'prob' would be overwritten" "$CRFPIPE" tag --model "$tmp/ner.model" \
    --posteriors --span-feature prob --to xml "$ner/test.conll"

# 7. A CoNLL-U file tagged for UPOS, then for XPOS, records both in MISC:
# eval asks which, and --label picks one, scoring as eval --model does,
# with the prediction in the column or in MISC.
"$CRFPIPE" -q train --template "$tpl" --threads 1 --max-iter 20 --label xpos \
    --model "$tmp/x.model" "$tmp/train.conllu" || fail "train --label xpos"
"$CRFPIPE" tag --model "$tmp/a.model" -o "$tmp/t1.conllu" "$tmp/test.conllu" || fail "tag upos"
"$CRFPIPE" tag --model "$tmp/x.model" -o "$tmp/t2.conllu" "$tmp/t1.conllu" || fail "tag xpos"
"$CRFPIPE" tag --model "$tmp/a.model" --prediction-to misc -o "$tmp/t3.conllu" "$tmp/t1.conllu" \
    || fail "tag upos again, into MISC"
expect_fail "several labels (GoldUPOS, GoldXPOS)" "$CRFPIPE" eval "$tmp/t2.conllu"
acc() { sed -n 's/^token accuracy: *\([0-9.]*\)%.*/\1/p'; }
for l in upos xpos; do
    m=$tmp/a.model; [ $l = xpos ] && m=$tmp/x.model
    ref=$("$CRFPIPE" eval --model "$m" "$tmp/test.conllu" | acc)
    got=$("$CRFPIPE" eval --label $l "$tmp/t2.conllu" | acc)
    [ -n "$ref" ] && [ "$got" = "$ref" ] || fail "eval --label $l: $got, eval --model: $ref"
done
ref=$("$CRFPIPE" eval --model "$tmp/a.model" "$tmp/test.conllu" | acc)
got=$("$CRFPIPE" eval --label upos "$tmp/t3.conllu" | acc)
[ "$got" = "$ref" ] || fail "GoldUPOS and PredictedUPOS: $got, eval --model: $ref"
finish
