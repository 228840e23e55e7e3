#!/bin/sh
# --dev-keep best: the model is the iterate with the lowest dev error, not
# the last.  Checked against the run that stops there by itself: training
# again with --max-iter K (K the best iteration of the first run's report)
# follows the same trajectory (one thread; every trainer here is deterministic) and must
# give the same model, byte for byte in its dump.  Also: the default keeps
# the last iterate, bad values and checkpoints are refused before any data
# is read.  A small slice of the POS sample: a few seconds.
. "$top_srcdir/tests/pipeline/common.sh"
pos="$top_srcdir/samples/pos"
tpl="$top_srcdir/tests/pipeline/tiny.tpl"
awk 'NR > 3000 && /^$/ { print; exit } { print }' "$pos/train.conllu" >"$tmp/train.conllu"
awk 'NR > 600 && /^$/ { print; exit } { print }' "$pos/dev.conllu" >"$tmp/dev.conllu"
base="--template $tpl --label upos --threads 1 --dev $tmp/dev.conllu"

# the earliest iteration with the lowest dev error in a --report table
best_of() {
    awk -F '\t' 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "iter") it = i; if ($i == "dev_error") de = i }; next }
                 best == "" || $de + 0 < best { best = $de + 0; k = $it }
                 { last = $it }
                 END { print k, last }' "$1"
}

for trainer in perceptron sgd-l1 lbfgs bcd newton-cg; do
    "$CRFPIPE" train $base --trainer "$trainer" --max-iter 40 --dev-patience 3 --dev-keep best \
        --model "$tmp/best.model" --report "$tmp/best.tsv" "$tmp/train.conllu" \
        >/dev/null 2>"$tmp/best.log" || { fail "$trainer: train --dev-keep best"; cat "$tmp/best.log" >&2; continue; }
    set -- $(best_of "$tmp/best.tsv")
    k=$1 last=$2
    if [ "$k" = "$last" ]; then
        # nothing to put back: the run must not claim it did
        grep -q "keeping iteration" "$tmp/best.log" && fail "$trainer: kept an iteration that is the last"
        echo "$trainer: the best iteration was the last ($last): nothing kept back" >&2
    else
        grep -q "keeping iteration $k, the lowest dev error" "$tmp/best.log" ||
            { fail "$trainer: no 'keeping iteration $k' (best $k, last $last)"; cat "$tmp/best.log" >&2; }
    fi
    "$CRFPIPE" model dump "$tmp/best.model" | grep -q "^meta	iterations	$k\$" ||
        fail "$trainer: the model does not record iteration $k"
    "$CRFPIPE" train $base --trainer "$trainer" --max-iter "$k" --dev-patience 0 \
        --model "$tmp/stop.model" "$tmp/train.conllu" >/dev/null 2>"$tmp/stop.log" ||
        { fail "$trainer: train --max-iter $k"; cat "$tmp/stop.log" >&2; continue; }
    "$CRFPIPE" model dump "$tmp/best.model" >"$tmp/best.dump"
    "$CRFPIPE" model dump "$tmp/stop.model" >"$tmp/stop.dump"
    cmp -s "$tmp/best.dump" "$tmp/stop.dump" ||
        fail "$trainer: the kept iterate $k differs from a run stopped at iteration $k"
    # the default keeps the last iterate: the same as stopping at the last
    if [ "$k" != "$last" ]; then
        "$CRFPIPE" train $base --trainer "$trainer" --max-iter 40 --dev-patience 3 \
            --model "$tmp/last.model" "$tmp/train.conllu" >/dev/null 2>&1 ||
            fail "$trainer: train (default dev-keep)"
        "$CRFPIPE" model dump "$tmp/last.model" | grep -q "^meta	iterations	$last\$" ||
            fail "$trainer: the default did not keep the last iteration ($last)"
    fi
done

expect_fail "dev-keep must be last or best, not 'first'" "$CRFPIPE" train $base --dev-keep first \
    --model "$tmp/x.model" "$tmp/train.conllu"
expect_fail "dev-keep=best cannot be combined with --checkpoint" "$CRFPIPE" train $base \
    --dev-keep best --checkpoint "$tmp/ck" --model "$tmp/x.model" "$tmp/train.conllu"
[ -e "$tmp/x.model" ] && fail "a refused run wrote a model"
finish
