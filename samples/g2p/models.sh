#!/bin/sh
# The full CMUdict G2P model: split CMUdict (split.sh, step 1), align by EM
# on the train part, train the CRF (sgd-l1 then lbfgs fine-tuning), score
# the test part with the tagger's best labelling; then choose the n-best
# re-ranking by phoneme and joint n-gram models (lm_rescore) on the dev
# part (rescore-dev.sh) and score the test part with it.
# Measured: README, "Grapheme-to-phoneme" ("The full CMUdict model").
#   samples/g2p/models.sh DATA OUTDIR     (run from the build directory)
# Environment: TEMPLATE (default g2p-wide.tpl; g2p.tpl has narrower letter
# windows and half the weights), EPOCHS (the sgd-l1 stage's epochs, default
# 7), BATCH (its sequences per step, default 8: a step's sequences are
# spread over the threads), SKIP_TRAIN=1 (keep OUTDIR's split and models,
# only score and re-rank).
set -eu
data=$1 out=$2
src=$(cd "$(dirname "$0")" && pwd)
template=${TEMPLATE:-g2p-wide.tpl} epochs=${EPOCHS:-7} batch=${BATCH:-8}
crfpipe=${CRFPIPE:-core/crfpipe}
mkdir -p "$out"
if [ "${SKIP_TRAIN:-0}" != 1 ]; then
"$src/split.sh" "$data/cmudict/cmudict.dict" "$out"
cat > "$out/train.xml" <<X
<?xml version="1.0"?><pipeline xmlns="urn:crfpipe:pipeline:1" name="g2p-full">
<stage plugin="lexicon_reader"><param name="stress" value="false"/></stage>
<stage plugin="graphemes"/>
<stage plugin="aligner"><param name="lexicon" value="train.dict"/><param name="model" value="cmudict.align"/><param name="unaligned" value="none"/></stage>
<stage plugin="templates"><param name="template" value="$src/$template"/></stage>
<stage plugin="sgd_l1"><param name="label" value="phone"/><param name="unlabelled" value="skip"/><param name="max-epochs" value="$epochs"/><param name="batch" value="$batch"/></stage>
<stage plugin="lbfgs"><param name="model" value="cmudict.model"/><param name="label" value="phone"/><param name="dev" value="dev.dict"/><param name="rho1" value="0.05"/><param name="max-iter" value="60"/></stage>
</pipeline>
X
/usr/bin/time -v "$crfpipe" run "$out/train.xml" -i "$out/train.dict" 2> "$out/train.log" ||
    { tail "$out/train.log"; exit 1; }
grep -E "trained|Maximum resident|Elapsed" "$out/train.log"
fi
eval_xml() { # NBEST RESCORE-STAGE
    cat <<X
<?xml version="1.0"?><pipeline xmlns="urn:crfpipe:pipeline:1" name="g2p-full-eval">
<stage plugin="lexicon_reader"><param name="stress" value="false"/><param name="block" value="256"/></stage>
<stage plugin="graphemes"/>
<stage plugin="viterbi"><param name="model" value="cmudict.model"/><param name="nbest" value="$1"/><param name="scores" value="true"/></stage>
$2<stage plugin="phonemes"/>
<stage plugin="evaluate"/>
</pipeline>
X
}
eval_xml 1 "" > "$out/eval-1best.xml"
echo "== test, the tagger's best labelling"
"$crfpipe" run "$out/eval-1best.xml" -i "$out/test.dict"
echo "== lm_rescore's settings, chosen on dev (rescore-dev.sh)"
CRFPIPE=$crfpipe "$src/rescore-dev.sh" "$out" "$out/cmudict.model" "$out/cmudict.align" \
    "$out/cmudict" | tee "$out/rescore-dev.txt"
set -- $(grep '^CHOSEN' "$out/rescore-dev.txt")
eval_xml "$2" "<stage plugin=\"lm_rescore\"><param name=\"model\" value=\"cmudict.plm\"/><param name=\"joint-model\" value=\"cmudict.jlm\"/><param name=\"weight\" value=\"$3\"/><param name=\"joint-weight\" value=\"$4\"/></stage>
" > "$out/eval.xml"
echo "== test, re-ranked: nbest $2, weight $3, joint-weight $4"
"$crfpipe" run "$out/eval.xml" -i "$out/test.dict"
