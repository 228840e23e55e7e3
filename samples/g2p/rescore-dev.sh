#!/bin/sh
# Choose lm_rescore's settings on the dev part: decode dev.dict once with
# K = 20 best labellings, train the phoneme and joint n-gram models on
# train.dict (saved as LM.plm and LM.jlm), re-rank the same lists with every
# setting of the grid below, and print the grid and the chosen line (lowest
# dev WER, then PER) as "CHOSEN candidates weight joint-weight".
#   samples/g2p/rescore-dev.sh DIR MODEL ALIGN LM   (run from the build directory)
# DIR holds train.dict and dev.dict (split.sh); MODEL is the tagger's model,
# ALIGN the aligner model it was trained with.  Environment: CRFPIPE,
# CANDIDATES ("10 20"), WEIGHTS ("0 0.2 0.4"),
# JOINT_WEIGHTS ("0.8 1.2 1.6 2.0 2.5").
set -eu
dir=$1 model=$2 align=$3 lm=$4
crfpipe=${CRFPIPE:-core/crfpipe}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crfpipe-rescore.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/nbest.xml" <<X
<?xml version="1.0"?><pipeline xmlns="urn:crfpipe:pipeline:1" name="g2p-nbest">
<stage plugin="lexicon_reader"><param name="stress" value="false"/><param name="block" value="1024"/></stage>
<stage plugin="graphemes"/>
<stage plugin="viterbi"><param name="model" value="$model"/><param name="nbest" value="20"/><param name="scores" value="true"/></stage>
</pipeline>
X
"$crfpipe" --quiet run "$tmp/nbest.xml" -i "$dir/dev.dict" -o "$tmp/dev-nbest.xml"
rescore() { # CANDIDATES WEIGHT JOINT-WEIGHT MODEL-PARAMS
    cat > "$tmp/r.xml" <<X
<?xml version="1.0"?><pipeline xmlns="urn:crfpipe:pipeline:1" name="g2p-rescore">
<stage plugin="xml_reader"/>
<stage plugin="lm_rescore">$4<param name="candidates" value="$1"/><param name="weight" value="$2"/><param name="joint-weight" value="$3"/></stage>
<stage plugin="phonemes"/>
<stage plugin="evaluate"/>
</pipeline>
X
    "$crfpipe" --quiet run "$tmp/r.xml" -i "$tmp/dev-nbest.xml" |
        awk -v k="$1" -v w="$2" -v j="$3" '/phoneme error rate/ { per = $4 } /word error rate/ { wer = $4 }
            END { sub("%", "", per); sub("%", "", wer); print k, w, j, wer, per }'
}
# the first run trains and saves the models, the others load them
rescore 1 0 0 "<param name=\"lexicon\" value=\"$dir/train.dict\"/><param name=\"alignment\" value=\"$align\"/><param name=\"model\" value=\"$lm.plm\"/><param name=\"joint-model\" value=\"$lm.jlm\"/>" > "$tmp/grid"
for k in ${CANDIDATES:-10 20}; do
    for w in ${WEIGHTS:-0 0.2 0.4}; do
        for j in ${JOINT_WEIGHTS:-0.8 1.2 1.6 2.0 2.5}; do
            rescore "$k" "$w" "$j" "<param name=\"model\" value=\"$lm.plm\"/><param name=\"joint-model\" value=\"$lm.jlm\"/>" >> "$tmp/grid"
        done
    done
done
echo "candidates weight joint-weight dev-WER dev-PER (candidates 1: the tagger's best)"
cat "$tmp/grid"
sort -k4,4g -k5,5g "$tmp/grid" | head -1 | awk '{ print "CHOSEN", $1, $2, $3 }'
