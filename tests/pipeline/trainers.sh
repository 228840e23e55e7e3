#!/bin/bash
# Every trainer through the CLI on the EWT sample: sgd-l1 and the perceptron
# (its three variants) give bit-identical models with 1 and 2 threads and a fixed
# seed, and a different seed changes them; a trainer that needs what the
# training set lacks, or an l1 penalty the perceptron cannot take, is refused
# with a message naming both sides.
. "$(dirname "$0")/common.sh"
data=$top_srcdir/tests/data/ewt-sample.conllu
tpl=$top_srcdir/samples/pos/pos.tpl
train() { # out threads extra...
    local out=$1 th=$2
    shift 2
    "$CRFPIPE" --quiet train --template "$tpl" --label upos --threads "$th" --max-iter 3 \
        --model "$out" "$@" "$data" 2>"$tmp/log" || { fail "train $*"; cat "$tmp/log" >&2; }
}
for t in "sgd-l1 --rho1 0.5" "perceptron" "perceptron --variant pa" "perceptron --variant arow"; do
    set -- $t
    train "$tmp/a.model" 1 --trainer "$@" --seed 7
    train "$tmp/b.model" 2 --trainer "$@" --seed 7
    train "$tmp/c.model" 1 --trainer "$@" --seed 8
    "$CRFPIPE" model dump "$tmp/a.model" >"$tmp/a.dump"
    "$CRFPIPE" model dump "$tmp/b.model" >"$tmp/b.dump"
    "$CRFPIPE" model dump "$tmp/c.model" >"$tmp/c.dump"
    cmp -s "$tmp/a.dump" "$tmp/b.dump" || fail "$t: 1 and 2 threads differ"
    cmp -s "$tmp/a.dump" "$tmp/c.dump" && fail "$t: the seed changes nothing"
    grep -q "^U	" "$tmp/a.dump" || fail "$t: no weights in the model"
done
# sgd-l1 gives the common rho1 its own default; in a chain the next
# trainer keeps the common default (0: fine-tune without l1).
train "$tmp/d.model" 1 --trainer sgd-l1
"$CRFPIPE" model dump "$tmp/d.model" | grep -q "^meta	rho1	0.59999" || fail "sgd-l1: rho1 default"
train "$tmp/e.model" 1 --trainer sgd-l1,lbfgs
"$CRFPIPE" model dump "$tmp/e.model" | grep -q "^meta	rho1	0$" || fail "sgd-l1,lbfgs: rho1 of lbfgs"
expect_fail "rho1" "$CRFPIPE" train --template "$tpl" --label upos --trainer perceptron --rho1 1 \
    --model "$tmp/x.model" "$data"
finish
