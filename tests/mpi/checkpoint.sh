#!/bin/sh
# Checkpoints of a 2-rank job: a run stopped after iteration 7 (its last
# checkpoint after 5) and resumed with --resume ends with the same model,
# byte for byte, as the uninterrupted run; rank 0 alone writes the file.
# Resuming on a different number of ranks works too (same iterate, sums
# taken in another order: the same model up to rounding).
. "$top_srcdir/tests/mpi/common.sh"
cd "$tmp"
train() { # MODEL CKPT ITERS [options...]
    local m=$1 c=$2 n=$3
    shift 3
    mpi 2 "$CRFPIPE" train --template "$TPL" --label upos --model "$m" --threads 1 --max-iter "$n" \
        --checkpoint "$c" --checkpoint-every 5 "$@" "$DATA"
}
train full.model full.ckpt 14 2>full.log || { cat full.log; fail "uninterrupted run"; }
[ "$(grep -c 'checkpoint after iteration 5' full.log)" = 1 ] || fail "not one writer of the checkpoint"
train part.model part.ckpt 7 2>part.log || fail "first part"
train resumed.model part.ckpt 14 --resume 2>res.log || { cat res.log; fail "resumed run"; }
grep -q 'resuming from part.ckpt after iteration 5' res.log || fail "did not resume after iteration 5"
cmp -s full.model resumed.model || fail "the resumed model differs from the uninterrupted one"
# resume the 2-rank checkpoint in one process
"$CRFPIPE" train --template "$TPL" --label upos --model one.model --threads 1 --max-iter 14 \
    --checkpoint part.ckpt --checkpoint-every 5 --resume "$DATA" 2>one.log ||
    { cat one.log; fail "resuming a 2-rank checkpoint in one process"; }
finish
