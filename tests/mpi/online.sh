#!/bin/sh
# Online trainers by iterative parameter mixing: with 2 ranks, sgd-l1 and
# the averaged perceptron each train one model (written once) whose test
# accuracy is within a point of the single-process model's; every rank
# takes the same stopping decision (the job ends, with the same number of
# epochs as the single run when the epoch count is fixed).
. "$top_srcdir/tests/mpi/common.sh"
TRAIN=$top_srcdir/samples/pos/train.conllu
TEST=$top_srcdir/samples/pos/test.conllu
acc() { "$CRFPIPE" eval --model "$1" "$TEST" | sed -n 's/.*token accuracy: *\([0-9.]*\)%.*/\1/p'; }
for tr in sgd-l1 perceptron; do
    "$CRFPIPE" train --trainer "$tr" --template "$TPL" --label upos --model "$tmp/$tr.1" --threads 1 \
        "$TRAIN" 2>"$tmp/$tr.l1" || { cat "$tmp/$tr.l1"; fail "$tr: single run"; continue; }
    mpi 2 "$CRFPIPE" train --trainer "$tr" --template "$TPL" --label upos --model "$tmp/$tr.2" --threads 1 \
        "$TRAIN" 2>"$tmp/$tr.l2" || { cat "$tmp/$tr.l2"; fail "$tr: 2-rank run"; continue; }
    [ "$(grep -c 'model written' "$tmp/$tr.l2")" = 1 ] || fail "$tr: not exactly one writer"
    a1=$(acc "$tmp/$tr.1")
    a2=$(acc "$tmp/$tr.2")
    echo "$tr: token accuracy $a1 % (1 process), $a2 % (2 ranks, parameter mixing)"
    awk -v a="$a1" -v b="$a2" 'BEGIN { exit !(b >= a - 1.0) }' ||
        fail "$tr: 2-rank accuracy $a2 more than a point below $a1"
    # the job's epochs are reported once, with the whole job's figures
    e1=$(grep -c '^iter' "$tmp/$tr.l1" || true)
    e2=$(grep -c '^iter' "$tmp/$tr.l2" || true)
    [ "$tr" != perceptron ] || [ "$e1" = "$e2" ] || fail "$tr: $e1 epochs alone, $e2 in the job"
done
finish
