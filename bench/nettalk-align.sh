#!/bin/bash
# G2P on NETtalk: a CRF trained on NETtalk's own (gold) letter-phoneme
# alignment against the same CRF trained on the alignment our aligner finds
# by EM with the gold alignment stripped (issue "Grapheme-to-phoneme":
# within 0.5 points of PER).  Same words (fold 0 of nettalk_reader's split:
# test = fold 0, dev = fold 1, train = folds 2-9), same template, same
# trainer; both are scored the same way, by the evaluate plugin on the
# phoneme strings the phonemes stage makes of the predicted labels: PER is
# the edit distance to the true pronunciation over its length, WER the share
# of words not exactly right.  The data is read where it lies; nothing of
# it is shipped.
#
#   bench/nettalk-align.sh DATA [OUT]   (make bench-nettalk-align DATA=../shared/data)
#
# Environment: TPL (default samples/nettalk/3-grm-.tpl), TRAIN_OPTS (default
# OWL-QN, rho1 0.5, rho2 1e-5, then an l2 fine tune, stopping on the dev
# fold, as bench/nettalk.sh), THREADS (2), CRFPIPE.
set -euo pipefail
arg=${1:?usage: nettalk-align.sh DATA [OUT]}
[ -d "$arg" ] && data=$arg/nettalk/nettalk.data || data=$arg
[ -r "$data" ] || { echo "nettalk-align.sh: no $data" >&2; exit 1; }
out=${2:-bench-out/nettalk-align}
here=$(cd "$(dirname "$0")/.." && pwd)
CRFPIPE=${CRFPIPE:-core/crfpipe}
TPL=${TPL:-$here/samples/nettalk/3-grm-.tpl}
THREADS=${THREADS:-2}
TRAIN_OPTS=${TRAIN_OPTS:---trainer lbfgs,lbfgs --1.rho1 0.5 --1.rho2 1e-5 --2.rho1 0 --2.rho2 1e-5 --2.max-iter 30 --dev-patience 10}
TIME=/usr/bin/time
[ -x $TIME ] || { echo "nettalk-align.sh needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
mkdir -p "$out"

# 1. The split as letter columns (letter, phone, stress; '-' is NETtalk's
#    null phoneme), and the same words as a word<TAB>phonemes lexicon with
#    the alignment gone: the letters joined, the non-null phonemes listed.
for part in train dev test; do
    "$CRFPIPE" convert --from nettalk-letters --to conll --reader-param part=$part \
        --reader-param fold=0 --reader-param folds=10 "$data" "$out/$part.gold.txt" 2>/dev/null
    awk -v OFS='\t' '
        NF == 0 { if (w != "") print w, p; w = ""; p = ""; next }
        { w = w $1; if ($2 != "-") p = p (p == "" ? "" : " ") $2 }
        END { if (w != "") print w, p }' "$out/$part.gold.txt" >"$out/$part.tsv"
done
echo "fold 0: $(wc -l <"$out/train.tsv") train, $(wc -l <"$out/dev.tsv") dev," \
     "$(wc -l <"$out/test.tsv") test words" >&2

# 2. Gold labels in the aligner's conventions ('_' for the null phoneme),
#    so that one phonemes stage reads both models' output.
for part in train dev; do
    awk -v OFS=' ' 'NF == 0 { print ""; next } { print $1, ($2 == "-" ? "_" : $2) }' \
        "$out/$part.gold.txt" >"$out/$part.gold2.txt"
done

# 3. Our alignment: EM on the training words' letters and phonemes, then
#    each training and dev word's letters labelled with it.
cat >"$out/align.xml" <<EOF
<pipeline xmlns="urn:crfpipe:pipeline:1" name="nettalk-realign">
  <stage plugin="lexicon_reader"><param name="format" value="tsv"/></stage>
  <stage plugin="graphemes"/>
  <stage plugin="aligner">
    <param name="lexicon" value="$out/train.tsv"/>
    <param name="lexicon-format" value="tsv"/>
    <param name="model" value="$out/ours.align"/>
  </stage>
  <stage plugin="conll_writer"><param name="columns" value="letter,phone"/></stage>
</pipeline>
EOF
rm -f "$out/ours.align"
for part in train dev; do
    "$CRFPIPE" -q run "$out/align.xml" -i "$out/$part.tsv" -o "$out/$part.ours.txt"
done

# 4. The same CRF on each alignment.
declare -A cpu wall rss
for a in gold ours; do
    [ $a = gold ] && tr=$out/train.gold2.txt dv=$out/dev.gold2.txt || tr=$out/train.ours.txt dv=$out/dev.ours.txt
    echo "== training on the $a alignment" >&2
    $TIME -f '%e %U %S %M' -o "$out/$a.time" "$CRFPIPE" train --template "$TPL" \
        --columns letter,phone --label phone --threads "$THREADS" --dev "$dv" $TRAIN_OPTS \
        --model "$out/$a.model" "$tr" 2>"$out/$a.log" || { tail "$out/$a.log" >&2; exit 1; }
    read -r w u s m <"$out/$a.time"
    wall[$a]=$w cpu[$a]=$(echo "$u + $s" | bc) rss[$a]=$((m / 1024))
done

# 5. Both scored on the test words' phoneme strings.
for a in gold ours; do
    cat >"$out/eval-$a.xml" <<EOF
<pipeline xmlns="urn:crfpipe:pipeline:1" name="nettalk-eval">
  <stage plugin="lexicon_reader"><param name="format" value="tsv"/><param name="block" value="256"/></stage>
  <stage plugin="graphemes"/>
  <stage plugin="viterbi"><param name="model" value="$out/$a.model"/></stage>
  <stage plugin="phonemes"/>
  <stage plugin="evaluate"/>
</pipeline>
EOF
    "$CRFPIPE" -q run "$out/eval-$a.xml" -i "$out/test.tsv" >"$out/eval-$a.txt"
done

per() { sed -n 's/.*phoneme error rate: *\([0-9.]*\)%.*/\1/p' "$1" | head -n 1; }
wer() { sed -n 's/.*word error rate: *\([0-9.]*\)%.*/\1/p' "$1" | head -n 1; }
echo
echo "NETtalk fold 0, template $(basename "$TPL"), $(wc -l <"$out/test.tsv") test words"
echo "| alignment | test PER | test WER | train wall s | train CPU s | peak MB |"
echo "|---|---|---|---|---|---|"
for a in gold ours; do
    echo "| $a | $(per "$out/eval-$a.txt") % | $(wer "$out/eval-$a.txt") % | ${wall[$a]} | ${cpu[$a]} | ${rss[$a]} |"
done
