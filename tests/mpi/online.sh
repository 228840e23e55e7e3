#!/bin/sh
# Online trainers by iterative parameter mixing: with 2 ranks, sgd-l1, the
# averaged perceptron and AROW each train one model (written once) whose test
# accuracy is within a point of the single-process model's; every rank
# takes the same stopping decision (the job ends, with the same number of
# epochs as the single run when the epoch count is fixed); --dev-keep best
# puts the same iterate back on every rank.
. "$top_srcdir/tests/mpi/common.sh"
TRAIN=$top_srcdir/samples/pos/train.conllu
TEST=$top_srcdir/samples/pos/test.conllu
acc() { "$CRFPIPE" eval --model "$1" "$TEST" | sed -n 's/.*token accuracy: *\([0-9.]*\)%.*/\1/p'; }
for tr in sgd-l1 perceptron arow; do
    # AROW's variances are mixed like its weights
    case $tr in arow) targ="perceptron --variant arow" ;; *) targ=$tr ;; esac
    "$CRFPIPE" train --trainer $targ --template "$TPL" --label upos --model "$tmp/$tr.1" --threads 1 \
        "$TRAIN" 2>"$tmp/$tr.l1" || { cat "$tmp/$tr.l1"; fail "$tr: single run"; continue; }
    mpi 2 "$CRFPIPE" train --trainer $targ --template "$TPL" --label upos --model "$tmp/$tr.2" --threads 1 \
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
    [ "$tr" = sgd-l1 ] || [ "$e1" = "$e2" ] || fail "$tr: $e1 epochs alone, $e2 in the job"
done

# --dev-keep best in a job: every rank sums the same dev errors and puts the
# same iterate back; the model is the job stopped there by --max-iter
DEV=$top_srcdir/samples/pos/dev.conllu
DATA=$top_srcdir/tests/data/ewt-sample.conllu
keep="--trainer perceptron --template $TPL --label upos --threads 1 --dev $DEV --dev-patience 0"
mpi 2 "$CRFPIPE" train $keep --max-iter 10 --dev-keep best --model "$tmp/keep.2" "$DATA" \
    2>"$tmp/keep.l2" || { cat "$tmp/keep.l2"; fail "2-rank run with --dev-keep best"; }
# the earliest iteration of lowest dev error, from the job's progress lines
k=$(sed -n 's/^iter *\([0-9]*\) .*dev-err *\([0-9.]*\)%.*/\1 \2/p' "$tmp/keep.l2" |
    awk 'best == "" || $2 + 0 < best { best = $2 + 0; k = $1 } END { print k }')
[ -n "$k" ] || fail "--dev-keep best: no dev errors in the job's log"
"$CRFPIPE" model dump "$tmp/keep.2" | grep -q "^meta	iterations	$k\$" ||
    fail "--dev-keep best in a job: the model is not iteration $k's"
mpi 2 "$CRFPIPE" train $keep --max-iter "$k" --model "$tmp/stop.2" "$DATA" 2>/dev/null ||
    fail "2-rank run stopped at iteration $k"
"$CRFPIPE" model dump "$tmp/keep.2" >"$tmp/keep.dump"
"$CRFPIPE" model dump "$tmp/stop.2" >"$tmp/stop.dump"
cmp -s "$tmp/keep.dump" "$tmp/stop.dump" ||
    fail "--dev-keep best in a job differs from the job stopped at iteration $k"
finish
