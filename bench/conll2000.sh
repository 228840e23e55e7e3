#!/bin/bash
# CoNLL-2000 chunking benchmark: training time, iterations, peak memory of
# training and of tagging through the CLI, active features, chunk F1,
# tagging speed, model load time, sparse vs dense
# forward-backward, for every trainer (lbfgs, OWL-QN, sgd-l1, sgd-l1 then
# lbfgs, the averaged perceptron, passive-aggressive and AROW, newton-cg, bcd then
# lbfgs).  With BASELINE=DIR
# (a build of an earlier revision, see bench/baseline.sh) it also times
# L-BFGS iterations and tagging of that build and this one side by side,
# alternating them, and prints the ratios.
# Usage: bench/conll2000.sh DATA_DIR [THREADS]  (make bench DATA=../shared/data)
set -euo pipefail
data=${1:?usage: conll2000.sh DATA_DIR [THREADS]}/conll2000
threads=${2:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
CRFPIPE=${CRFPIPE:-$here/core/crfpipe}
TAGBENCH=${TAGBENCH:-$here/bench/tagbench}
RHO1=${RHO1:-0.5}
out=${BENCH_OUT:-bench-out}
mkdir -p "$out"
[ -r "$data/train.txt" ] || { echo "no $data/train.txt" >&2; exit 1; }
TIME=/usr/bin/time
[ -x $TIME ] || { echo "bench needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

declare -a rows
run() { # name template extra-train-options...
    local name=$1 tpl=$2
    shift 2
    echo "== $name: training" >&2
    $TIME -v "$CRFPIPE" train --template "$here/samples/chunking/$tpl" --columns word,pos,chunk \
        --threads "$threads" --model "$out/$name.model" "$@" "$data/train.txt" 2>"$out/$name.log" \
        || { cat "$out/$name.log" >&2; exit 1; }
    grep -E '^(training|iter|trained)' "$out/$name.log" | sed -n '1p;2p;$p' >&2
    local iters secs rss active total
    iters=$(sed -n 's/^trained: \([0-9]*\) iterations in \([0-9.]*\) s.*/\1/p' "$out/$name.log")
    secs=$(sed -n 's/^trained: \([0-9]*\) iterations in \([0-9.]*\) s.*/\2/p' "$out/$name.log")
    active=$(sed -n 's/^trained: .* \([0-9]*\) active features of \([0-9]*\).*/\1/p' "$out/$name.log")
    total=$(sed -n 's/^trained: .* \([0-9]*\) active features of \([0-9]*\).*/\2/p' "$out/$name.log")
    wall=$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$out/$name.log")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/$name.log")
    $TIME -v "$CRFPIPE" tag --model "$out/$name.model" --columns word,pos,chunk --threads 1 \
        -o "$out/$name.test" "$data/test.txt" 2>"$out/$name.tagtime" \
        || { cat "$out/$name.tagtime" >&2; exit 1; }
    local tagrss
    tagrss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/$name.tagtime")
    "$CRFPIPE" eval "$out/$name.test" >"$out/$name.eval"
    local f1
    f1=$(sed -n 's/^chunk F1: //p' "$out/$name.eval")
    "$TAGBENCH" "$out/$name.model" "$data/test.txt" conll_reader word,pos,chunk >"$out/$name.tag"
    local load tps ratio
    load=$(sed -n 's/^model load: *\([0-9.]*\) s.*/\1/p' "$out/$name.tag")
    tps=$(sed -n 's/.* = \([0-9]*\) tokens\/s.*/\1/p' "$out/$name.tag")
    ratio=$(sed -n 's/.*dense\/sparse = \([0-9.]*\).*/\1/p' "$out/$name.tag")
    rows+=("$(printf '| %-14s | %5s | %6.3f | %7.1f | %7s | %6.0f | %6.0f | %9s / %-9s | %6s | %9s | %5s | %5s |' \
        "$name" "$iters" "$(awk -v s="$secs" -v i="$iters" 'BEGIN { print s / i }')" "$secs" "$wall" "$((rss / 1024))" "$((tagrss / 1024))" \
        "$active" "$total" "$f1" "$tps" "$load" "$ratio")")
}

if [ -n "${SIDE_ONLY:-}" ]; then
    # only the side-by-side timings (needs an L-BFGS model of this build)
    [ -f "$out/lbfgs.model" ] || run lbfgs chunking.tpl
else
run lbfgs chunking.tpl
run owlqn chunking.tpl --rho1 "$RHO1"
run star-owlqn chunking-star.tpl --rho1 "$RHO1"
run sgd-l1 chunking.tpl --trainer sgd-l1 --rho1 "${SGD_RHO1:-0.6}"
run sgd-l1,lbfgs chunking.tpl --trainer sgd-l1,lbfgs --rho1 "${SGD_RHO1:-0.6}" --2.rho1 0
run perceptron chunking.tpl --trainer perceptron
run perceptron-pa chunking.tpl --trainer perceptron --variant pa
run perceptron-arow chunking.tpl --trainer perceptron --variant arow
run newton-cg chunking.tpl --trainer newton-cg
run bcd,lbfgs chunking.tpl --trainer bcd,lbfgs --rho1 "${BCD_RHO1:-0.5}" --2.rho1 0 --bcd.max-sweeps 4
fi

# Side by side with a baseline build: L-BFGS seconds per iteration (same
# data, same defaults) and tagging speed, alternating the two builds so that
# drifts of the machine's speed hit both.
side=""
if [ -n "${BASELINE:-}" ]; then
    per_iter() { # crfpipe log
        "$1" train --template "$here/samples/chunking/chunking.tpl" --columns word,pos,chunk \
            --threads "$threads" --max-iter 40 --model "$out/side.model" "$data/train.txt" \
            2>"$2" || { cat "$2" >&2; exit 1; }
        # mean seconds of iterations 11..40 (after the first ones settle)
        sed -n 's/^iter *\([0-9]*\) .* \([0-9.]*\)s ([0-9.]*s)$/\1 \2/p' "$2" |
            awk '$1 > 10 { s += $2; n++ } END { printf "%.4f", s / n }'
    }
    tagrate() { # tagbench model
        local best=0 r
        for k in 1 2 3; do
            r=$("$1" "$2" "$data/test.txt" conll_reader word,pos,chunk |
                sed -n 's/.* = \([0-9]*\) tokens\/s.*/\1/p')
            [ "$r" -gt "$best" ] && best=$r
        done
        echo "$best"
    }
    echo "== side by side with $BASELINE" >&2
    alt=${SIDE_ROUNDS:-3}
    bs=() ns=() tbs=() tns=()
    for ((k = 1; k <= alt; k++)); do
        bs+=("$(per_iter "$BASELINE/core/crfpipe" "$out/side-base$k.log")")
        ns+=("$(per_iter "$CRFPIPE" "$out/side-new$k.log")")
        tbs+=("$(tagrate "$BASELINE/bench/tagbench" "$out/lbfgs.model")")
        tns+=("$(tagrate "$TAGBENCH" "$out/lbfgs.model")")
    done
    side=$(awk -v b="${bs[*]}" -v n="${ns[*]}" -v tb="${tbs[*]}" -v tn="${tns[*]}" 'BEGIN {
        k = split(b, B, " "); split(n, N, " "); split(tb, TB, " "); split(tn, TN, " ")
        for (i = 1; i <= k; i++) { sb += B[i]; sn += N[i]; stb += TB[i]; stn += TN[i] }
        printf "L-BFGS s/iteration (mean of iterations 11-40), %d alternating rounds: baseline %s, this build %s: ratio %.3f\n", k, b, n, sn / sb
        printf "tagging tok/s (tagbench, best of 3 per round): baseline %s, this build %s: ratio %.3f\n", tb, tn, stn / stb }')
fi

echo
echo "CoNLL-2000 chunking, $threads threads for training, 1 for tagging ($(nproc) cores, $(date -u +%F))"
echo "| run            | iters | s/iter | train s | wall    | MB peak | tag MB | active / total features | F1     | tok/s     | load s| fb d/s|"
echo "|----------------|-------|--------|---------|---------|--------|--------|-------------------------|--------|-----------|-------|-------|"
printf '%s\n' "${rows[@]}"
echo "(MB peak: peak RSS of training; tag MB: of crfpipe tag on test.txt, 1 thread;"
echo " MB = 1,048,576 bytes, /usr/bin/time -v's kbytes / 1024;"
echo " fb d/s: dense / sparse forward-backward time on the test sequences with that model;"
echo " iters: epochs for sgd-l1 and the perceptron, sweeps for bcd, summed over both stages for chains)"
[ -n "$side" ] && { echo; echo "Side by side with the baseline build $BASELINE:"; echo "$side"; }
true
