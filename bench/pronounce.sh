#!/bin/bash
# Pronouncing speed (issue 12: >= 20,000 words/s on one thread): the first
# N CMUdict headwords through the pipeline of samples/g2p/pronounce.xml
# (lexicon_reader words, graphemes, viterbi with one decoding thread,
# phonemes, lexicon_writer) with MODEL, for each `block` size in BLOCKS,
# ROUNDS times; prints CPU (user + sys), wall and words/s.  The tagger's
# best labelling is timed ("1best"); with PLM and JLM (the phoneme and
# joint models models.sh saves as cmudict.plm, cmudict.jlm) also the
# re-ranking of its NBEST (10) best by lm_rescore ("rescored").  With
# CRFPIPE_BEFORE (another build's crfpipe) the two builds alternate within
# each round, so that their ratio is measured under the same load, and
# their outputs must be identical.
#
# Usage: bench/pronounce.sh MODEL WORDS_OR_CMUDICT
#   (make bench-pronounce MODEL=out/cmudict.model DATA=../shared/data)
# Environment: N=100000, BLOCKS="256 4096", ROUNDS=2, CRFPIPE, CRFPIPE_BEFORE,
# PLM, JLM, NBEST=10.
set -euo pipefail
model=$(cd "$(dirname "${1:?usage: pronounce.sh MODEL WORDS}")" && pwd)/$(basename "$1")
words=${2:?usage: pronounce.sh MODEL WORDS}
here=$(cd "$(dirname "$0")/.." && pwd)
CRFPIPE=${CRFPIPE:-$here/core/crfpipe}
N=${N:-100000} BLOCKS=${BLOCKS:-256 4096} ROUNDS=${ROUNDS:-2}
TIME=/usr/bin/time
[ -x $TIME ] || { echo "bench needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
[ -r "$model" ] || { echo "pronounce.sh: cannot read model $model" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crfpipe-pronounce.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Headwords only: no comments, no variants word(2), first field, first N.
awk -v n="$N" '/^(;;;|#)/ || $1 ~ /\([0-9]+\)$/ || NF == 0 { next }
    { print $1; if (++k == n) exit }' "$words" > "$tmp/words"
n=$(wc -l < "$tmp/words")
echo "== pronouncing $n words, model $model, one decoding thread"

modes=1best
[ -z "${PLM:-}" ] || [ -z "${JLM:-}" ] || modes="1best rescored"
pipeline() { # MODE BLOCK
    nb='' rs=''
    if [ "$1" = rescored ]; then
        nb="<param name=\"nbest\" value=\"${NBEST:-10}\"/><param name=\"scores\" value=\"true\"/>"
        rs="<stage plugin=\"lm_rescore\"><param name=\"model\" value=\"$PLM\"/><param name=\"joint-model\" value=\"$JLM\"/></stage>"
    fi
    cat <<X
<?xml version="1.0"?><pipeline xmlns="urn:crfpipe:pipeline:1" name="bench-pronounce">
<stage plugin="lexicon_reader"><param name="format" value="words"/><param name="block" value="$2"/></stage>
<stage plugin="graphemes"/>
<stage plugin="viterbi"><param name="model" value="$model"/><param name="threads" value="1"/>$nb</stage>
$rs<stage plugin="phonemes"/>
<stage plugin="lexicon_writer"/>
</pipeline>
X
}
run() { # BUILD-NAME CRFPIPE BLOCK MODE
    pipeline "$4" "$3" > "$tmp/p.xml"
    $TIME -f "%U %S %e %M" -o "$tmp/time" "$2" --quiet run "$tmp/p.xml" \
        -i "$tmp/words" -o "$tmp/out-$1-$3-$4"
    read -r u s e m < "$tmp/time"
    awk -v b="$1 $4" -v k="$3" -v u="$u" -v s="$s" -v e="$e" -v m="$m" -v n="$n" 'BEGIN {
        printf "%-16s block %5d  CPU %6.2f s  wall %6.2f s  %7.0f words/s (CPU)  peak %4.0f MB\n",
               b, k, u + s, e, n / (u + s), m / 1024 }'
    echo "$u $s" >> "$tmp/cpu-$1-$4-$3"
}

for r in $(seq "$ROUNDS"); do
    echo "-- round $r"
    for mode in $modes; do
        for k in $BLOCKS; do
            [ -z "${CRFPIPE_BEFORE:-}" ] || run before "$CRFPIPE_BEFORE" "$k" "$mode"
            run after "$CRFPIPE" "$k" "$mode"
            if [ -n "${CRFPIPE_BEFORE:-}" ] &&
                ! cmp -s "$tmp/out-before-$k-$mode" "$tmp/out-after-$k-$mode"; then
                echo "pronounce.sh: the two builds pronounce differently ($mode, block $k)" >&2
                exit 1
            fi
        done
    done
done
echo "== mean CPU per build and block"
for f in "$tmp"/cpu-*; do
    name=${f##*/cpu-}
    awk -v name="$name" -v n="$n" '{ c += $1 + $2; r++ }
        END { printf "%-22s %6.2f s  %7.0f words/s\n", name, c / r, n * r / c }' "$f"
done
