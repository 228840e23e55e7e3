#!/bin/bash
# Chained trainers (--trainer a,b and two trainer stages in a pipeline):
# the second starts from the first's solution, shrunk to its active
# features, and keeps exactly those (the mask); per-stage options; the dev
# set goes through the pipeline's own stages; capability errors.
. "$(dirname "$0")/common.sh"
data=$top_srcdir/tests/data/ewt-sample.conllu
tpl=$top_srcdir/samples/pos/pos.tpl
"$CRFPIPE" train --trainer lbfgs,lbfgs --template "$tpl" --label upos --rho1 1 --2.rho1 0 \
    --max-iter 8 --dev "$data" --model "$tmp/chain.model" "$data" 2>"$tmp/log" ||
    { fail "chained training failed"; cat "$tmp/log" >&2; }
grep -q "stage 2/2: lbfgs on" "$tmp/log" || fail "no second stage"
grep -q "dev-err" "$tmp/log" || fail "no dev error in the progress lines"
# Active features after stage 1 = after stage 2 (only they are fine-tuned),
# and stage 2 runs on fewer parameters than stage 1.
a1=$(grep -m1 "lbfgs: 8 iterations" "$tmp/log" | sed 's/.* \([0-9]*\) active features of \([0-9]*\)/\1 \2/')
a2=$(grep "lbfgs: 8 iterations" "$tmp/log" | tail -1 | sed 's/.* \([0-9]*\) active features of \([0-9]*\)/\1 \2/')
set -- $a1 $a2
[ "$#" -eq 4 ] || fail "cannot read the stage summaries: '$a1' '$a2'"
if [ "$#" -eq 4 ]; then
    [ "$1" -eq "$3" ] || fail "stage 2 changed the active set: $1 -> $3"
    [ "$4" -lt "$2" ] || fail "stage 2 did not shrink the parameter vector: $2 -> $4"
    [ "$1" -lt "$2" ] || fail "stage 1 (rho1=1) kept every feature"
fi
"$CRFPIPE" model dump "$tmp/chain.model" >"$tmp/dump" || fail "model dump"
grep -q "trainer.*lbfgs,lbfgs" "$tmp/dump" || fail "model does not record the chain"
"$CRFPIPE" eval --model "$tmp/chain.model" "$data" >"$tmp/eval" || fail "eval of the chained model"
grep -q "token accuracy" "$tmp/eval" || fail "no accuracy"
# The same chain as a pipeline file: two trainer stages.
cat >"$tmp/chain.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<pipeline xmlns="urn:crfpipe:pipeline:1" name="chain">
  <stage plugin="conllu_reader"/>
  <stage plugin="templates"><param name="template" value="$tpl"/></stage>
  <stage plugin="lbfgs"><param name="rho1" value="1"/><param name="max-iter" value="8"/>
    <param name="label" value="upos"/></stage>
  <stage plugin="lbfgs"><param name="rho1" value="0"/><param name="max-iter" value="8"/>
    <param name="model" value="$tmp/chain2.model"/></stage>
</pipeline>
XML
"$CRFPIPE" run "$tmp/chain.xml" -i "$data" 2>"$tmp/log2" || { fail "pipeline chain"; cat "$tmp/log2" >&2; }
"$CRFPIPE" model dump "$tmp/chain2.model" | grep -q "trainer.*lbfgs,lbfgs" ||
    fail "pipeline chain: model does not record the chain"
grep -q "stage 2/2" "$tmp/log2" || fail "pipeline: no second stage"
# Only the last trainer needs a model; an unknown trainer option is refused.
expect_fail "unknown option '--nonesuch'" "$CRFPIPE" train --trainer lbfgs,lbfgs --template "$tpl" \
    --label upos --nonesuch 1 --model "$tmp/x.model" "$data"
finish
