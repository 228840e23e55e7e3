#!/bin/sh
# The deterministic split of CMUdict used by the g2p sample and `make models`.
#
#   samples/g2p/split.sh CMUDICT.dict OUTDIR [STEP]
#
# Headwords are numbered in file order (CMUdict is sorted, and a word's
# variants `word(2)`... follow it, so a word and its variants always land in
# the same part).  Headword k goes to test when k % 10 == 9, to dev when
# k % 10 == 8, else to train.  With STEP > 1 only every STEP-th headword is
# kept first (the shipped excerpt is STEP=40).  Comment lines are dropped.
set -eu
in=$1 out=$2 step=${3:-1}
mkdir -p "$out"
awk -v step="$step" -v out="$out" '
/^#/ || NF < 2 { next }
{
    w = $1; sub(/\([0-9]+\)$/, "", w)
    if (w != last) { k++; last = w }
    if ((k - 1) % step != 0) next
    j = int((k - 1) / step)
    f = (j % 10 == 9) ? "test" : (j % 10 == 8) ? "dev" : "train"
    print > (out "/" f ".dict")
}' "$in"
