#!/bin/sh
# Checkpoints in one process (tests/mpi/checkpoint.sh does a job):
# - L-BFGS stopped after iteration 7 (last checkpoint after 5) and resumed
#   with --resume gives the uninterrupted run's model byte for byte, also
#   with a dev set (whose best error and iteration the checkpoint keeps);
# - a checkpoint is written atomically: no temporary file is left;
# - refused with a message: a corrupted or truncated file, another run's
#   file (other penalty, other data), --resume without --checkpoint, a
#   trainer without checkpoints, a chain.
. "$top_srcdir/tests/pipeline/common.sh"
DATA=$top_srcdir/tests/data/ewt-sample.conllu
TPL=$top_srcdir/samples/pos/pos.tpl
DEV=$top_srcdir/samples/pos/dev.conllu
cd "$tmp"
train() { # MODEL CKPT ITERS [options...]
    local m=$1 c=$2 n=$3
    shift 3
    "$CRFPIPE" train --template "$TPL" --label upos --model "$m" --max-iter "$n" --checkpoint "$c" \
        --checkpoint-every 5 "$@" "$DATA"
}
train full.model full.ckpt 14 2>full.log || { cat full.log; fail "uninterrupted run"; }
grep -q 'checkpoint after iteration 10 written to full.ckpt' full.log || fail "no checkpoint after 10"
ls ./*.tmp.* >/dev/null 2>&1 && fail "a temporary checkpoint file was left"
train part.model part.ckpt 7 2>part.log || fail "first part"
cp part.ckpt part5.ckpt
train resumed.model part.ckpt 14 --resume 2>res.log || { cat res.log; fail "resumed run"; }
grep -q 'resuming from part.ckpt after iteration 5' res.log || fail "did not resume after 5"
cmp -s full.model resumed.model || fail "the resumed model differs from the uninterrupted one"

# with a dev set: the patience rule resumes where it was
train dfull.model dfull.ckpt 14 --dev "$DEV" --dev-patience 4 2>dfull.log || fail "dev run"
train dpart.model dpart.ckpt 6 --dev "$DEV" --dev-patience 4 2>/dev/null || fail "dev first part"
train dres.model dpart.ckpt 14 --dev "$DEV" --dev-patience 4 --resume 2>dres.log ||
    { cat dres.log; fail "dev resumed"; }
cmp -s dfull.model dres.model || fail "dev run: the resumed model differs"

# refusals
head -c 100000 part5.ckpt >trunc.ckpt
expect_fail 'trunc.ckpt: truncated' train x.model trunc.ckpt 14 --resume
# a header announcing 2^60 bytes of trainer state: refused before allocating
cp part5.ckpt huge.ckpt
printf '\000\000\000\000\000\000\000\020' | dd of=huge.ckpt bs=1 seek=48 conv=notrunc 2>/dev/null
expect_fail 'huge.ckpt: truncated or corrupted .* header announces 1152921504606846976 bytes of trainer state' \
    train x.model huge.ckpt 14 --resume
cp part5.ckpt flip.ckpt
printf 'X' | dd of=flip.ckpt bs=1 seek=5000 conv=notrunc 2>/dev/null
expect_fail 'flip.ckpt: checksum mismatch' train x.model flip.ckpt 14 --resume
expect_fail 'made by trainer .lbfgs. with rho1 0, rho2 0.3' \
    train x.model part5.ckpt 14 --rho2 0.5 --resume
expect_fail 'belongs to another model' \
    "$CRFPIPE" train --template "$top_srcdir/tests/pipeline/tiny.tpl" --label upos --model x.model \
    --checkpoint part5.ckpt --resume "$DATA"
expect_fail 'cannot open the checkpoint' train x.model missing.ckpt 14 --resume
expect_fail 'needs --checkpoint' "$CRFPIPE" train --template "$TPL" --label upos --model x.model --resume "$DATA"
expect_fail "trainer 'sgd_l1' cannot write or resume" train x.model s.ckpt 3 --trainer sgd-l1
expect_fail 'not available for chained trainers' train x.model c.ckpt 3 --trainer lbfgs,lbfgs
[ ! -e x.model ] || fail "a refused run wrote a model"
finish
