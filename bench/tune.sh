#!/bin/bash
# Choose regularisation by k-fold cross-validation on the TRAINING file only
# (the test file is never read).  Usage:
#   bench/tune.sh TRAIN.txt TEMPLATE [FOLDS] [SETTINGS...]
# Each SETTING is a quoted list of `crfpipe train` options, e.g.
#   bench/tune.sh ../shared/data/conll2000/train.txt samples/chunking/chunking.tpl 3 \
#       "--rho2 0.1" "--rho2 0.3" "--rho2 0.7" "--rho1 0.5 --rho2 0.7"
# The sentences are cut into FOLDS contiguous blocks (neighbouring sentences
# come from the same article, so a random split would leak); each setting is
# trained on FOLDS-1 blocks and scored on the remaining one, by crfpipe train
# --cv-folds (whose table goes to TUNE_OUT/cv.tsv).  Prints, per
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

# crfpipe train --cv-folds cuts the same blocks (fold f holds sentences
# [f*N/k, (f+1)*N/k)), trains each fold's own model on the others and
# scores chunk F1 on it; its table has a row per fold, then the means.
nsent=$(awk 'BEGIN { RS = "" } END { print NR }' "$train")
echo "tune.sh: $nsent sentences in $folds folds of $train" >&2

printf '| %-28s |' "setting"
for ((f = 0; f < folds; f++)); do printf ' fold %d F1 |' "$f"; done
printf ' mean F1 | mean iters | mean active |\n'
for setting in "$@"; do
    table="$out/cv.tsv"
    # shellcheck disable=SC2086
    "$CRFPIPE" train --template "$tpl" --columns "$cols" --threads "$threads" $setting \
        --cv-folds "$folds" -o "$table" "$train" 2>"$out/cv.log" ||
        { cat "$out/cv.log" >&2; exit 1; }
    # the columns by name: fold, iterations, active, chunk_f1
    read -r -a f1s <<<"$(awk -F '\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $1 ~ /^[0-9]+$/ { printf "%s ", $c["chunk_f1"] }' "$table")"
    read -r mean iters active <<<"$(awk -F '\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $1 == "mean" { print $c["chunk_f1"], int($c["iterations"]), int($c["active"]) }' "$table")"
    [ "${#f1s[@]}" -eq "$folds" ] && [ -n "$mean" ] ||
        { echo "tune.sh: no chunk F1 in the table of '$setting'" >&2; cat "$table" >&2; exit 1; }
    for ((f = 0; f < folds; f++)); do
        echo "tune.sh: $setting, fold $f: F1 ${f1s[$f]}" >&2
    done
    printf '| %-28s |' "$setting"
    for v in "${f1s[@]}"; do printf ' %9s |' "$v"; done
    printf ' %7.2f | %10d | %11d |\n' "$mean" "$iters" "$active"
done
