#!/bin/bash
# Choose regularisation by k-fold cross-validation on the TRAINING file only
# (the test file is never read).  Usage:
#   bench/tune.sh TRAIN.txt TEMPLATE [FOLDS] [SETTINGS...]
# Each SETTING is a quoted list of `crfpipe train` options, e.g.
#   bench/tune.sh ../shared/data/conll2000/train.txt samples/chunking/chunking.tpl 3 \
#       "--rho2 0.1" "--rho2 0.3" "--rho2 0.7" "--rho1 0.5 --rho2 0.7"
# The sentences are cut into FOLDS contiguous blocks (neighbouring sentences
# come from the same article, so a random split would leak); each setting is
# trained on FOLDS-1 blocks and scored on the remaining one.  Prints, per
# setting, the chunk F1 of every fold, their mean, the mean iteration count
# and the mean active features.  Environment: CRFPIPE (the binary),
# COLUMNS_SPEC (default word,pos,chunk), THREADS (default 2), TUNE_OUT
# (work directory, default tune-out).
set -euo pipefail
train=${1:?usage: tune.sh TRAIN TEMPLATE [FOLDS] [SETTINGS...]}
tpl=${2:?usage: tune.sh TRAIN TEMPLATE [FOLDS] [SETTINGS...]}
folds=${3:-3}
shift $(($# < 3 ? $# : 3))
[ $# -gt 0 ] || set -- "--rho2 0.1" "--rho2 0.3" "--rho2 0.7" "--rho2 1.5"
here=$(cd "$(dirname "$0")/.." && pwd)
CRFPIPE=${CRFPIPE:-$here/core/crfpipe}
cols=${COLUMNS_SPEC:-word,pos,chunk}
threads=${THREADS:-2}
out=${TUNE_OUT:-tune-out}
mkdir -p "$out"
[ -r "$train" ] || { echo "tune.sh: cannot read $train" >&2; exit 1; }
[ "$folds" -ge 2 ] 2>/dev/null || { echo "tune.sh: FOLDS must be >= 2" >&2; exit 1; }

# Split into blocks: fold f holds sentences [f*N/k, (f+1)*N/k).
nsent=$(awk 'BEGIN { RS = "" } END { print NR }' "$train")
for ((f = 0; f < folds; f++)); do
    awk -v RS= -v ORS='\n\n' -v lo=$((f * nsent / folds)) -v hi=$(((f + 1) * nsent / folds)) \
        -v held="$out/fold$f.held" -v rest="$out/fold$f.train" \
        'NR - 1 >= lo && NR - 1 < hi { print > held; next } { print > rest }' "$train"
done
echo "tune.sh: $nsent sentences in $folds folds of $train" >&2

printf '| %-28s |' "setting"
for ((f = 0; f < folds; f++)); do printf ' fold %d F1 |' "$f"; done
printf ' mean F1 | mean iters | mean active |\n'
for setting in "$@"; do
    sum=0 isum=0 asum=0 f1s=()
    for ((f = 0; f < folds; f++)); do
        log="$out/fold$f.log"
        # shellcheck disable=SC2086
        "$CRFPIPE" train --template "$tpl" --columns "$cols" --threads "$threads" $setting \
            --model "$out/fold$f.model" "$out/fold$f.train" 2>"$log" ||
            { cat "$log" >&2; exit 1; }
        "$CRFPIPE" tag --model "$out/fold$f.model" --columns "$cols" -o "$out/fold$f.tagged" \
            "$out/fold$f.held"
        f1=$("$CRFPIPE" eval "$out/fold$f.tagged" | sed -n 's/^chunk F1: //p')
        iters=$(sed -n 's/^trained: \([0-9]*\) iterations.*/\1/p' "$log")
        active=$(sed -n 's/.* \([0-9]*\) active features of.*/\1/p' "$log")
        f1s+=("$f1")
        sum=$(awk -v a="$sum" -v b="$f1" 'BEGIN { print a + b }')
        isum=$((isum + iters))
        asum=$((asum + active))
        echo "tune.sh: $setting, fold $f: F1 $f1, $iters iterations" >&2
    done
    printf '| %-28s |' "$setting"
    for v in "${f1s[@]}"; do printf ' %9s |' "$v"; done
    printf ' %7.2f | %10d | %11d |\n' "$(awk -v s="$sum" -v k="$folds" 'BEGIN { print s / k }')" \
        $((isum / folds)) $((asum / folds))
done
