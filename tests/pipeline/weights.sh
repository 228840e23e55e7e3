#!/bin/sh
# Sequence weights in column data (CoNLL has no sentence features): a
# column named by --weight-feature (default "weight") whose value every
# token of a sentence repeats is the sentence's weight.  Weight 2 trains
# what two copies of the sentence train, weight 0 what leaving it out
# trains: the same optimum, objective and non-zero weights.  Cross-
# validation keeps the weights in its folds: every sentence weighing 2 with
# twice the penalty is the unweighted objective doubled, fold by fold.  A
# column whose tokens disagree, or no number, is an error naming the
# sentence and token.  (CRFsuite's @weight and every trainer:
# crfsuite_model.sh; the engine: test_weights.)
. "$top_srcdir/tests/pipeline/common.sh"
tpl=$top_srcdir/tests/pipeline/tiny.tpl

# 150 EWT sentences as form, UPOS; weight n mod 3 in turn: 2, 0, 1
awk -F'\t' '/^#/ { next } NF == 0 { if (n) print ""; n = 0; if (++s >= 150) exit; next }
    $1 ~ /[-.]/ { next } { print $2 "\t" $4; n++ }' "$top_srcdir/samples/pos/train.conllu" \
    >"$tmp/plain.tsv"
awk -F'\t' 'BEGIN { split("2 0 1", W, " ") }
    NF == 0 { print; s++; next } { print $1 "\t" W[s % 3 + 1] "\t" $2 }' "$tmp/plain.tsv" \
    >"$tmp/w.tsv"
awk 'BEGIN { RS = ""; ORS = "\n\n" } { k = (NR - 1) % 3; if (k == 0) print $0 "\n\n" $0; if (k == 2) print }' \
    "$tmp/plain.tsv" >"$tmp/copies.tsv"

fit() { # model log data columns [options]
    m=$1 l=$2 d=$3 c=$4
    shift 4
    "$CRFPIPE" train --template "$tpl" --columns "$c" --rho2 0.5 --epsilon 1e-10 --threads 1 \
        --model "$m" "$@" "$d" 2>"$l" || { cat "$l"; fail "train on $d"; }
}
final_f() { sed -n 's/.*F = \([0-9.e+-]*\).*/\1/p' "$1" | tail -n 1; }
nonzero() { # model: its non-zero weights, KEY TAB WEIGHT, by key (observation ids differ)
    "$CRFPIPE" model dump "$1" | awk -F'\t' '($1 == "U" && NF == 4) || ($1 == "B" && NF == 5) {
        k = $1; for (i = 2; i < NF; i++) k = k "|" $i; print k "\t" $NF }' | LC_ALL=C sort
}

fit "$tmp/w.model" "$tmp/w.log" "$tmp/w.tsv" form,weight,label
fit "$tmp/c.model" "$tmp/c.log" "$tmp/copies.tsv" form,label
fit "$tmp/p.model" "$tmp/p.log" "$tmp/plain.tsv" form,label
fw=$(final_f "$tmp/w.log") fc=$(final_f "$tmp/c.log") fp=$(final_f "$tmp/p.log")
echo "objective: weighted $fw, copies $fc, unweighted $fp"
awk -v a="$fw" -v b="$fc" 'BEGIN { d = a - b; exit !(b > 0 && d * d < (1e-7 * b) ^ 2) }' ||
    fail "the weighted optimum $fw is not the copies' $fc"
[ "$fw" = "$fp" ] && fail "the weight column changed nothing"
nonzero "$tmp/w.model" >"$tmp/w.w"
nonzero "$tmp/c.model" >"$tmp/c.w"
paste "$tmp/w.w" "$tmp/c.w" | awk -F'\t' '{ if ($1 != $3) key++
        d = $2 - $4; if (d < 0) d = -d; if (d > m) m = d }
    END { printf "%d weights, the largest difference from the copies %.2g\n", NR, m
          exit !(NR > 1000 && !key && m < 1e-4) }' || fail "the weighted model is not the copies'"
[ "$(wc -l <"$tmp/w.w")" = "$(wc -l <"$tmp/c.w")" ] || fail "not as many weights as the copies"
# the model says that weights shaped it (and the log, how many)
"$CRFPIPE" model dump "$tmp/w.model" |
    grep -qx 'meta	sequence-weights	100 of 150 sequences weigh other than 1 (feature weight)' ||
    fail "the weighted model does not record its 100 weighted sequences"
grep -q "training: 100 of the sequences weigh other than 1" "$tmp/w.log" || fail "no log line of the weights"
"$CRFPIPE" model dump "$tmp/p.model" | grep -q 'sequence-weights' &&
    fail "an unweighted model records sequence weights"

# cross-validation: weights 2 with rho2 1 = twice the unweighted objective
# with rho2 0.5, at each fold's optimum
awk -F'\t' 'NF == 0 { print; next } { print $1 "\t2\t" $2 }' "$tmp/plain.tsv" >"$tmp/w2.tsv"
for x in w2 plain; do
    cols=form,label rho=0.5
    [ "$x" = w2 ] && cols=form,weight,label rho=1
    "$CRFPIPE" train --template "$tpl" --columns "$cols" --rho2 "$rho" --epsilon 1e-10 \
        --threads 1 --cv-folds 3 "$tmp/$x.tsv" 2>"$tmp/cv.$x.log" >/dev/null ||
        { cat "$tmp/cv.$x.log"; fail "cross-validation on $x"; }
    sed -n 's/.*F = \([0-9.e+-]*\).*/\1/p' "$tmp/cv.$x.log" >"$tmp/cvf.$x"
done
[ "$(wc -l <"$tmp/cvf.plain")" = 3 ] || fail "not 3 folds trained: $(cat "$tmp/cvf.plain")"
paste "$tmp/cvf.w2" "$tmp/cvf.plain" | awk '{ d = $1 - 2 * $2; if (d * d > (1e-7 * $1) ^ 2) bad++ }
    END { exit NR != 3 || bad }' ||
    fail "cross-validation folds: weighted $(cat "$tmp/cvf.w2") vs twice $(cat "$tmp/cvf.plain")"

# errors: tokens that disagree, no number
printf 'a\t2\tX\nb\t3\tY\n\n' >"$tmp/bad.tsv"
expect_fail "sentence 1, token 2: weight '3' where the first token has '2'" \
    "$CRFPIPE" train --template "$tpl" --columns form,weight,label --model "$tmp/x" "$tmp/bad.tsv"
printf 'a\tmany\tX\n\n' >"$tmp/bad.tsv"
expect_fail "sentence 1: weight 'many' is not a number from 0 to 1e+09" \
    "$CRFPIPE" train --template "$tpl" --columns form,weight,label --model "$tmp/x" "$tmp/bad.tsv"
# --weight-feature '' reads no weight: the column is an ordinary one
"$CRFPIPE" -q train --template "$tpl" --columns form,weight,label --weight-feature '' \
    --max-iter 2 --model "$tmp/x" "$tmp/bad.tsv" || fail "--weight-feature ''"
finish
