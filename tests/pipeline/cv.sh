#!/bin/sh
# crfpipe train --cv-folds K: each fold's model is scored on the sentences it
# did not see.  Checked against doing it by hand: split the data the same
# way (K runs of consecutive sentences, or with --cv-split interleaved
# sentence i in fold i mod K), train on each fold's complement, score
# with crfpipe eval: the held-out token and sentence error counts must be
# the same (also with --min-freq, which each fold applies to its own
# training sentences).  With --model, the model trained on all the data is the one a
# plain run trains.  Refusals before any data is read.  A small slice of
# the POS sample, one thread: a few seconds.
. "$top_srcdir/tests/pipeline/common.sh"
pos="$top_srcdir/samples/pos"
tpl="$top_srcdir/tests/pipeline/tiny.tpl"
awk 'NR > 2000 && /^$/ { print; exit } { print }' "$pos/train.conllu" >"$tmp/all.conllu"
base="--template $tpl --label upos --threads 1"
K=3

# split_fold K k want MODE FILE: the sentences of FILE in fold k (want 1) or
# in the other folds (want 0); sentences end at lines of white space.
# MODE blocks: fold k is the k-th run of consecutive sentences, from
# sentence floor(k total / K) to floor((k + 1) total / K) - 1; interleaved:
# sentence n in fold n mod K.
split_fold() {
    awk -v K=$1 -v k=$2 -v want=$3 -v mode=$4 '
        function held(n) { return mode == "interleaved" ? n % K == k : n >= lo && n < hi }
        NR == FNR { if (/^[ \t]*$/) { if (inside) total++; inside = 0 } else inside = 1; next }
        FNR == 1 { if (inside) total++; inside = 0
                   lo = int(k * total / K); hi = int((k + 1) * total / K) }
        /^[ \t]*$/ { if (inside) { if (held(n) == want) print ""; n++; inside = 0 }; next }
        { inside = 1; if (held(n) == want) print }
        END { if (inside && held(n) == want) print "" }' "$5" "$5"
}

# one trainer, and a chain (each fold's copy of the model shrunk between
# its stages, the held-out fold following the ids); both splits
for run in "blocks lbfgs" "interleaved lbfgs" "blocks sgd-l1" \
    "blocks sgd-l1,lbfgs --rho1 0.5 --2.rho1 0 --2.max-iter 10" "blocks lbfgs --min-freq 2"; do
    mode=${run%% *}
    run=${run#* }
    trainer=${run%% *}
    opts=""
    [ "$trainer" != "$run" ] && opts=${run#* }
    "$CRFPIPE" train $base --trainer "$trainer" $opts --cv-folds $K --cv-split $mode \
        "$tmp/all.conllu" \
        >"$tmp/table" 2>"$tmp/log" || { fail "$trainer: train --cv-folds"; cat "$tmp/log" >&2; continue; }
    head -1 "$tmp/table" | grep -q "^fold	train_sentences	heldout_sentences	heldout_tokens	" ||
        fail "$trainer: no header: $(head -1 "$tmp/table")"
    [ "$(cut -f1 "$tmp/table" | tr '\n' ' ')" = "fold 1 2 3 mean stderr " ] ||
        { fail "$trainer: rows are not folds 1-3, mean, stderr"; cat "$tmp/table" >&2; }
    k=0
    while [ $k -lt $K ]; do
        split_fold $K $k 0 $mode "$tmp/all.conllu" >"$tmp/train$k.conllu"
        split_fold $K $k 1 $mode "$tmp/all.conllu" >"$tmp/held$k.conllu"
        "$CRFPIPE" -q train $base --trainer "$trainer" $opts --model "$tmp/fold$k.model" \
            "$tmp/train$k.conllu" || fail "$trainer: train fold $k by hand"
        "$CRFPIPE" eval --model "$tmp/fold$k.model" "$tmp/held$k.conllu" >"$tmp/eval$k" ||
            fail "$trainer: eval fold $k"
        # "token accuracy: 85.08% (656/771)", "sequence accuracy: 33.33% (11/33)"
        set -- $(sed -n 's/^token accuracy:.*(\([0-9]*\)\/\([0-9]*\)).*/\1 \2/p;
                           s/^sequence accuracy:.*(\([0-9]*\)\/\([0-9]*\)).*/\1 \2/p' "$tmp/eval$k")
        want_te=$(($2 - $1)) ntok=$2 want_se=$(($4 - $3)) nseq=$4
        f=$((k + 1))
        grep -q "^fold $f/$K: token error [0-9.]*% ($want_te of $ntok)" "$tmp/log" ||
            { fail "$trainer: fold $f: not $want_te token errors of $ntok"; grep "^fold $f/" "$tmp/log" >&2; }
        row=$(awk -F '\t' -v f=$f '$1 == f' "$tmp/table")
        [ "$(echo "$row" | cut -f3,4)" = "$nseq	$ntok" ] ||
            fail "$trainer: fold $f: the table does not hold $nseq sentences, $ntok tokens out: $row"
        awk -v r="$(echo "$row" | cut -f8)" -v e=$want_se -v n=$nseq \
            'BEGIN { d = r - 100 * e / n; exit !(d < 0.006 && d > -0.006) }' ||
            fail "$trainer: fold $f: sentence error $(echo "$row" | cut -f8)%, not $want_se of $nseq"
        k=$((k + 1))
    done
    # the mean row is the mean of the folds' rates
    awk -F '\t' '$1 ~ /^[0-9]+$/ { s += $7; n++ } $1 == "mean" { m = $7 }
                 END { d = m - s / n; exit !(n == 3 && d < 0.0015 && d > -0.0015) }' "$tmp/table" ||
        { fail "$trainer: the mean row is not the folds' mean"; cat "$tmp/table" >&2; }
done

# --dev with a label one fold's training part lacks: EWT's first 240
# sentences have INTJ only in the last block, so that fold's dev set leaves
# out the dev sentences holding it, as a run on the other blocks alone skips
# them; dev stopping then takes the same decisions as that run
awk 'BEGIN { RS = ""; ORS = "\n\n" } NR <= 240' "$pos/train.conllu" >"$tmp/e240.conllu"
awk 'BEGIN { RS = ""; ORS = "\n\n" } NR <= 30 || /\tINTJ\t/' "$pos/dev.conllu" >"$tmp/edev.conllu"
nintj=$(awk 'BEGIN { RS = "" } /\tINTJ\t/ { n++ } END { print n + 0 }' "$tmp/edev.conllu")
devopts="--dev $tmp/edev.conllu --dev-patience 2"
"$CRFPIPE" train $base $devopts --cv-folds $K "$tmp/e240.conllu" >/dev/null 2>"$tmp/log" ||
    { fail "train --cv-folds --dev"; cat "$tmp/log" >&2; }
grep -q "^$nintj dev sentences* left out of this fold" "$tmp/log" ||
    { fail "no fold left out the $nintj dev sentence(s) with INTJ"; grep "left out" "$tmp/log" >&2; }
split_fold $K 2 0 blocks "$tmp/e240.conllu" >"$tmp/train2.conllu"
split_fold $K 2 1 blocks "$tmp/e240.conllu" >"$tmp/held2.conllu"
"$CRFPIPE" -q train $base $devopts --model "$tmp/e2.model" "$tmp/train2.conllu" 2>/dev/null ||
    fail "train the last block's complement by hand with --dev"
set -- $("$CRFPIPE" eval --model "$tmp/e2.model" "$tmp/held2.conllu" |
         sed -n 's/^token accuracy:.*(\([0-9]*\)\/\([0-9]*\)).*/\1 \2/p')
grep -q "^fold 3/$K: token error [0-9.]*% ($(($2 - $1)) of $2)" "$tmp/log" ||
    { fail "fold 3 with --dev: not $(($2 - $1)) token errors of $2"; grep "^fold 3/$K: t" "$tmp/log" >&2; }

# with --model: the folds, then a model of all the data, the one a plain run
# trains (a chain too); -o takes the table
"$CRFPIPE" train $base --cv-folds $K --model "$tmp/cv.model" -o "$tmp/cv.tsv" \
    "$tmp/all.conllu" >"$tmp/out" 2>"$tmp/log" || { fail "train --cv-folds --model"; cat "$tmp/log" >&2; }
[ -s "$tmp/out" ] && fail "the table went to stdout despite -o"
# --report: the curves of every fold, then of all the data, told apart
"$CRFPIPE" -q train $base --cv-folds $K --max-iter 4 --report "$tmp/cv-report.tsv" \
    "$tmp/all.conllu" >/dev/null || fail "train --cv-folds --report"
[ "$(awk -F '\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "fold") c = i; next }
                  { print $c }' "$tmp/cv-report.tsv" | uniq | tr '\n' ' ')" = "1 2 3 " ] ||
    fail "--report: the fold column is not 1, 2, 3 in turn"
[ "$(wc -l <"$tmp/cv.tsv")" -eq 6 ] || fail "-o: not a table of 3 folds"
"$CRFPIPE" -q train $base --model "$tmp/plain.model" "$tmp/all.conllu" || fail "plain train"
"$CRFPIPE" model dump "$tmp/cv.model" >"$tmp/cv.dump"
"$CRFPIPE" model dump "$tmp/plain.model" >"$tmp/plain.dump"
cmp -s "$tmp/cv.dump" "$tmp/plain.dump" || fail "--cv-folds --model differs from a plain run"
chain="--trainer sgd-l1,lbfgs --rho1 0.5 --2.rho1 0 --2.max-iter 10"
"$CRFPIPE" -q train $base $chain --cv-folds $K --model "$tmp/cvc.model" "$tmp/all.conllu" \
    >/dev/null || fail "train a chain --cv-folds --model"
"$CRFPIPE" -q train $base $chain --model "$tmp/plainc.model" "$tmp/all.conllu" ||
    fail "plain train of a chain"
"$CRFPIPE" model dump "$tmp/cvc.model" >"$tmp/cv.dump"
"$CRFPIPE" model dump "$tmp/plainc.model" >"$tmp/plain.dump"
cmp -s "$tmp/cv.dump" "$tmp/plain.dump" ||
    fail "a chain's --cv-folds --model differs from a plain run"

# chunk labels (WNUT-17 entities, BIO): each fold's chunks as conlleval
# counts them, against crfpipe eval on the same split done by hand (its
# sentences end at lines holding a tab).
head -n 3000 "$top_srcdir/samples/ner/train.conll" >"$tmp/ner.conll"
ner="--template $top_srcdir/samples/ner/ner.tpl --columns word,label --label label --threads 1"
"$CRFPIPE" train $ner --cv-folds $K "$tmp/ner.conll" >"$tmp/table" 2>"$tmp/log" ||
    { fail "train --cv-folds on entities"; cat "$tmp/log" >&2; }
[ "$(head -1 "$tmp/table" | cut -f9-11)" = "chunk_precision	chunk_recall	chunk_f1" ] ||
    fail "no chunk columns: $(head -1 "$tmp/table")"
k=0
while [ $k -lt $K ]; do
    split_fold $K $k 0 blocks "$tmp/ner.conll" >"$tmp/train$k.conll"
    split_fold $K $k 1 blocks "$tmp/ner.conll" >"$tmp/held$k.conll"
    "$CRFPIPE" -q train $ner --model "$tmp/ner$k.model" "$tmp/train$k.conll" ||
        fail "entities: train fold $k by hand"
    # "processed 1302 tokens with 32 phrases; found: 1 phrases; correct: 1."
    set -- $("$CRFPIPE" eval --model "$tmp/ner$k.model" --columns word,label "$tmp/held$k.conll" |
             sed -n 's/.*processed \([0-9]*\) tokens with \([0-9]*\) phrases; found: \([0-9]*\) phrases; correct: \([0-9]*\).*/\2 \3 \4/p')
    [ $# -eq 3 ] || { fail "entities: no conlleval line from crfpipe eval"; break; }
    f=$((k + 1))
    grep -q "^fold $f/$K: .*chunk F1 [0-9.]* ($3 right of $2 found, $1 expected)" "$tmp/log" ||
        { fail "entities: fold $f: not $3 right of $2 found, $1 expected"; grep "^fold $f/$K: t" "$tmp/log" >&2; }
    k=$((k + 1))
done
# and for labels that are not chunks, no chunk figures
awk -F '\t' '$1 == "1" { exit !($11 == "nan") }' "$tmp/cv.tsv" ||
    fail "POS folds have a chunk F1: $(sed -n 2p "$tmp/cv.tsv")"

# an -o that cannot be written fails before the folds train, not after
expect_fail "is a directory" "$CRFPIPE" train $base --cv-folds 3 -o "$tmp" "$tmp/all.conllu"
grep -q "^fold 1/" "$tmp/err" && fail "the folds trained before -o was refused"
expect_fail "cv-folds does not warm-start" "$CRFPIPE" train $base --cv-folds 3 \
    --init-model "$tmp/cv.model" "$tmp/all.conllu"
expect_fail "cv-split must be blocks or interleaved" "$CRFPIPE" train $base --cv-folds 3 \
    --cv-split random "$tmp/all.conllu"
expect_fail "cv-folds must be 0 (none) or at least 2" "$CRFPIPE" train $base --cv-folds 1 \
    "$tmp/all.conllu"
expect_fail "cv-folds = 100000, but the training data has" "$CRFPIPE" train $base \
    --cv-folds 100000 "$tmp/all.conllu"
expect_fail "cv-folds and rho1-path exclude each other" "$CRFPIPE" train $base --cv-folds 3 \
    --rho1-path 1,0.5 --model "$tmp/x.model" "$tmp/all.conllu"
expect_fail "-o needs --rho1-path or --cv-folds" "$CRFPIPE" train $base -o "$tmp/t" \
    --model "$tmp/x.model" "$tmp/all.conllu"
expect_fail "--model OUT is required" "$CRFPIPE" train $base "$tmp/all.conllu"
[ -e "$tmp/x.model" ] && fail "a refused run wrote a model"
finish
