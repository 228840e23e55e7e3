#!/bin/bash
# NETtalk phonetisation (Lavergne, Cappé & Yvon 2010, §5): their Table 4
# (iterations, features, active features, phoneme error rate, time, peak
# memory) for every optimizer, and their Table 2 (sparse vs dense
# forward-backward).  The data is read where it lies and converted to
# columns in the output directory; nothing of it is shipped.
#
#   bench/nettalk.sh DATA [OUT]        (make bench-nettalk DATA=../shared/data)
#
# DATA is the directory holding nettalk/nettalk.data (or the file itself).
# Split: fold 0 of 10 (nettalk_reader: headword k in fold k % 10; test =
# fold 0, dev = fold 1, train = folds 2-9).  PER = letters whose predicted
# phoneme (the null phoneme '-' included) differs from the gold one, on the
# test part, as `crfpipe eval` counts token errors.
#
# Environment: SETS (feature sets, default "1-grm 3-grm- 3-grm"; the others
# are 5-grm 7-grm 5-grm+), OPTS (optimizers, default every one: owlqn
# owlqn+ft sgd sgd+ft bcd bcd+ft newton), THREADS (2), RHO1 (0.5), RHO2
# (1e-5, the paper's), RHO2_L2 (the l2-only objective of newton-cg, 0.1),
# FB_SETS (sets of the sparse/dense table, default "1-grm 3-grm- 3-grm"; "" skips it),
# FB_ITERS (10), CRFPIPE.
set -euo pipefail
arg=${1:?usage: nettalk.sh DATA [OUT]}
[ -d "$arg" ] && data=$arg/nettalk/nettalk.data || data=$arg
[ -r "$data" ] || { echo "nettalk.sh: no $data" >&2; exit 1; }
out=${2:-bench-out/nettalk}
here=$(cd "$(dirname "$0")/.." && pwd)
CRFPIPE=${CRFPIPE:-core/crfpipe}
SETS=${SETS:-1-grm 3-grm- 3-grm}
OPTS=${OPTS:-owlqn owlqn+ft sgd sgd+ft bcd bcd+ft newton}
THREADS=${THREADS:-2} RHO1=${RHO1:-0.5} RHO2=${RHO2:-1e-5} RHO2_L2=${RHO2_L2:-0.1}
FB_SETS=${FB_SETS-1-grm 3-grm- 3-grm} FB_ITERS=${FB_ITERS:-10}
TIME=/usr/bin/time
[ -x $TIME ] || { echo "nettalk.sh needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
mkdir -p "$out"
COLS=letter,phone,stress

for part in train dev test; do
    [ -s "$out/$part.txt" ] ||
        "$CRFPIPE" convert --from nettalk-letters --to conll --reader-param part=$part \
            --reader-param fold=0 --reader-param folds=10 "$data" "$out/$part.txt" 2>/dev/null
done
echo "split (fold 0 of 10): train $(grep -c '^$' "$out/train.txt") words, dev" \
     "$(grep -c '^$' "$out/dev.txt"), test $(grep -c '^$' "$out/test.txt")" >&2

# The options of each optimizer.  "+ft": the l1 trainer, then L-BFGS on its
# active features alone with the small l2 penalty only (the paper's fine
# tuning, §5.3.1).  Training stops on the dev part (§5.3.1 too).
opts() {
    local l1="--rho1 $RHO1 --rho2 $RHO2" ft="--2.rho1 0 --2.rho2 $RHO2 --2.max-iter 30"
    case $1 in
    owlqn) echo "--trainer lbfgs $l1 --dev-patience 10" ;;
    owlqn+ft) echo "--trainer lbfgs,lbfgs --1.rho1 $RHO1 --1.rho2 $RHO2 $ft --dev-patience 10" ;;
    sgd) echo "--trainer sgd-l1 $l1 --max-epochs 30" ;;
    sgd+ft) echo "--trainer sgd-l1,lbfgs --1.rho1 $RHO1 --1.rho2 $RHO2 --1.max-epochs 30 $ft" ;;
    bcd) echo "--trainer bcd $l1" ;;
    bcd+ft) echo "--trainer bcd,lbfgs --1.rho1 $RHO1 --1.rho2 $RHO2 $ft" ;;
    newton) echo "--trainer newton-cg --rho1 0 --rho2 $RHO2_L2" ;;
    *) echo "nettalk.sh: unknown optimizer '$1'" >&2; exit 1 ;;
    esac
}

field() { sed -n "$1" "$2" | tail -1; }

rows=()
for set in $SETS; do
    for opt in $OPTS; do
        name=$set.$opt log=$out/$set.$opt.log
        echo "== $set, $opt" >&2
        # shellcheck disable=SC2046
        if ! $TIME -v "$CRFPIPE" train --template "$here/samples/nettalk/$set.tpl" \
            --columns $COLS --label phone --threads "$THREADS" --dev "$out/dev.txt" \
            $(opts "$opt") --model "$out/$name.model" "$out/train.txt" >"$log" 2>&1; then
            tail -3 "$log" >&2
            rows+=("| $set | $opt | failed: $(grep -m1 -i 'error' "$log" | cut -c1-80) |")
            continue
        fi
        "$CRFPIPE" eval --model "$out/$name.model" --columns $COLS --threads "$THREADS" \
            "$out/test.txt" >"$out/$name.eval" 2>&1
        iters=$(field 's/^trained: \([0-9]*\) iterations.*/\1/p' "$log")
        feats=$(field 's/^training: .* \([0-9]*\) parameters.*/\1/p' "$log")
        active=$(field 's/^trained: .* \([0-9]*\) active features of.*/\1/p' "$log")
        per=$(sed -n 's/^token accuracy: *[0-9.]*% *(\([0-9]*\)\/\([0-9]*\)).*/\1 \2/p' "$out/$name.eval" |
              awk '{ printf "%.2f", 100 * ($2 - $1) / $2 }')
        wall=$(field 's/.*Elapsed (wall clock) time.*: //p' "$log")
        cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.0f", s }' "$log")
        rss=$(field 's/.*Maximum resident set size (kbytes): //p' "$log")
        rows+=("$(printf '| %-6s | %-8s | %4s | %11s | %7s | %6s %% | %8s | %6s s | %6d MB |' \
            "$set" "$opt" "$iters" "$feats" "$active" "$per" "$wall" "$cpu" "$((rss / 1024))")")
        echo "${rows[-1]}" >&2
    done
done

echo
echo "NETtalk, test fold 0 ($(date -u +%F), $(nproc) cores, --threads $THREADS, rho1 $RHO1, rho2 $RHO2)"
echo
echo "| set    | optim.   | iter | features    | active  | PER      | wall     | CPU      | peak RSS  |"
echo "|--------|----------|------|-------------|---------|----------|----------|----------|-----------|"
printf '%s\n' "${rows[@]}"

# Table 2: the same OWL-QN iterations with the sparse and the dense
# forward-backward, warm-started from the OWL-QN model of the set so that
# M = exp(lambda) - 1 has the sparsity of a trained model.
[ -n "$FB_SETS" ] || exit 0
echo
echo "Forward-backward in training: $FB_ITERS OWL-QN iterations from the trained model, wall seconds"
echo
echo "| set    | sparse | dense | dense/sparse | auto |"
echo "|--------|--------|-------|--------------|------|"
for set in $FB_SETS; do
    init=$out/$set.owlqn.model
    [ -s "$init" ] || { echo "| $set | (no $init: run OPTS=owlqn first) | | |"; continue; }
    declare -A t=()
    for mode in sparse dense auto; do
        "$CRFPIPE" train --template "$here/samples/nettalk/$set.tpl" --columns $COLS --label phone \
            --threads "$THREADS" --rho1 "$RHO1" --rho2 "$RHO2" --init-model "$init" \
            --max-iter "$FB_ITERS" --epsilon 0 --fb-mode $mode --model "$out/$set.fb.model" \
            "$out/train.txt" >"$out/$set.fb-$mode.log" 2>&1
        t[$mode]=$(field 's/^trained: [0-9]* iterations in \([0-9.]*\) s.*/\1/p' "$out/$set.fb-$mode.log")
    done
    printf '| %-6s | %6s | %5s | %12s | %4s |\n' "$set" "${t[sparse]}" "${t[dense]}" \
        "$(awk -v s="${t[sparse]}" -v d="${t[dense]}" 'BEGIN { printf "%.2f", d / s }')" "${t[auto]}"
done
