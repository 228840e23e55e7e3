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
# Split: fold FOLD of 10 (nettalk_reader: headword k in fold k % 10; test =
# fold FOLD, default 0, dev = the next fold, train = the other eight).  PER = letters whose predicted
# phoneme (the null phoneme '-' included) differs from the gold one, on the
# test part, as `crfpipe eval` counts token errors; given for the model's
# Viterbi labelling and for posterior decoding (each letter's most probable
# phoneme), and on the dev part too, where the decoding is to be chosen.
#
# Environment: FOLD (the test fold, 0-9: bench/nettalk-folds.sh averages them),
# OWLQN_HISTORY (5), OWLQN_PATIENCE (10: OWL-QN stops after that many
# iterations without a better dev error; 0: only when F stops decreasing),
# SETS (feature sets, default "1-grm 3-grm- 3-grm"; the others
# are 5-grm 7-grm 5-grm+), OPTS (default every optimizer: owlqn sgd bcd
# newton; each l1 one with and without fine tuning), THREADS (2), RHO1 (0.5), RHO2
# (1e-5, the paper's), RHO2_L2 (the l2-only objective of newton-cg, 0.1),
# FB_SETS (sets of the sparse/dense table, default "1-grm 3-grm- 3-grm"; "" skips it),
# FB_ITERS (10), FB_REPS (3: rounds of the sparse/dense runs, medians), CRFPIPE, TAGBENCH (default: the build's bench/tagbench); REPORT_ONLY=1 prints the tables from the logs and
# models an earlier run left in OUT (rows without a finished log are left out).
set -euo pipefail
arg=${1:?usage: nettalk.sh DATA [OUT]}
[ -d "$arg" ] && data=$arg/nettalk/nettalk.data || data=$arg
[ -r "$data" ] || { echo "nettalk.sh: no $data" >&2; exit 1; }
out=${2:-bench-out/nettalk}
here=$(cd "$(dirname "$0")/.." && pwd)
CRFPIPE=${CRFPIPE:-core/crfpipe}
SETS=${SETS:-1-grm 3-grm- 3-grm}
OPTS=${OPTS:-owlqn sgd bcd newton}
FOLD=${FOLD:-0}
# OWL-QN's history (correction pairs, two half-precision vectors of the
# feature count each): 5 fits 24 GB up to 7-grm (5-grm+: 13 GB)
OWLQN_HISTORY=${OWLQN_HISTORY:-5}
OWLQN_PATIENCE=${OWLQN_PATIENCE:-10}
THREADS=${THREADS:-2} RHO1=${RHO1:-0.5} RHO2=${RHO2:-1e-5} RHO2_L2=${RHO2_L2:-0.1}
FB_SETS=${FB_SETS-1-grm 3-grm- 3-grm} FB_ITERS=${FB_ITERS:-10} FB_REPS=${FB_REPS:-3}
TIME=/usr/bin/time
[ -x $TIME ] || { echo "nettalk.sh needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
mkdir -p "$out"
COLS=letter,phone,stress

for part in train dev test; do
    [ -s "$out/$part.txt" ] ||
        "$CRFPIPE" convert --from nettalk-letters --to conll --reader-param part=$part \
            --reader-param fold="$FOLD" --reader-param folds=10 "$data" "$out/$part.txt" 2>/dev/null
done
echo "split (fold $FOLD of 10): train $(grep -c '^$' "$out/train.txt") words, dev" \
     "$(grep -c '^$' "$out/dev.txt"), test $(grep -c '^$' "$out/test.txt")" >&2

# The options of each run.  An l1 optimizer X runs as the chain X,lbfgs:
# the second stage is the paper's fine tuning (§5.3.1: L-BFGS on the
# active features alone, small l2 penalty only), and the first stage's
# model is saved too, so one run gives both rows, "X" and "X+ft".
# Training stops on the dev part (§5.3.1 too).  newton: Newton-CG on the
# l2 objective.
opts() {
    local ft="--2.rho1 0 --2.rho2 $RHO2 --2.max-iter 30"
    local l1="--1.rho1 $RHO1 --1.rho2 $RHO2 --1.model $out/$2.model $ft"
    case $1 in
    owlqn) echo "--trainer lbfgs,lbfgs $l1 --1.history $OWLQN_HISTORY --dev-patience $OWLQN_PATIENCE" ;;
    sgd) echo "--trainer sgd-l1,lbfgs $l1 --1.max-epochs 30" ;;
    bcd) echo "--trainer bcd,lbfgs $l1" ;;
    newton) echo "--trainer newton-cg --rho1 0 --rho2 $RHO2_L2" ;;
    *) echo "nettalk.sh: unknown optimizer '$1'" >&2; exit 1 ;;
    esac
}

field() { sed -n "$1" "$2" | tail -1; }

# per MODEL PART DECODE: the PER in % of MODEL on PART (test, dev) when it
# tags with DECODE (viterbi: the best labelling; posterior: each letter's
# most probable phoneme, which minimises the expected letter errors; the
# choice between them is made on the dev part)
per_of() {
    local ev=${1%.model}.$2.$3.eval
    "$CRFPIPE" eval --model "$1" --columns $COLS --threads "$THREADS" --decode "$3" "$out/$2.txt" \
        >"$ev" 2>&1
    sed -n 's/^token accuracy: *[0-9.]*% *(\([0-9]*\)\/\([0-9]*\)).*/\1 \2/p' "$ev" |
        awk '{ printf "%.2f", 100 * ($2 - $1) / $2 }'
}

# the four PER cells of MODEL: test and dev, Viterbi and posterior decoding
pers() {
    printf '%s %s %s %s' "$(per_of "$1" test viterbi)" "$(per_of "$1" test posterior)" \
        "$(per_of "$1" dev viterbi)" "$(per_of "$1" dev posterior)"
}

row() {  # set optimizer iterations features active "pers" wall cpu rss-kB
    local p
    read -ra p <<<"$6"
    printf '| %-6s | %-9s | %4s | %11s | %7s | %6s %% | %6s %% | %6s %% | %6s %% | %8s | %7s | %6d MB |' \
        "$1" "$2" "$3" "$4" "$5" "${p[0]}" "${p[1]}" "${p[2]}" "${p[3]}" "$7" "$8" "$(($9 / 1024))"
}

rows=()
for set in $SETS; do
    for opt in $OPTS; do
        name=$set.$opt log=$out/$set.$opt.log
        echo "== $set, $opt" >&2
        if [ -n "${REPORT_ONLY:-}" ]; then
            # the table again from an earlier run's logs and models
            grep -q '^trained:' "$log" 2>/dev/null || continue
        # shellcheck disable=SC2046
        elif ! $TIME -v "$CRFPIPE" train --template "$here/samples/nettalk/$set.tpl" \
            --columns $COLS --label phone --threads "$THREADS" --dev "$out/dev.txt" \
            $(opts "$opt" "$name.l1") --model "$out/$name.model" "$out/train.txt" >"$log" 2>&1; then
            tail -3 "$log" >&2
            rows+=("| $set | $opt | failed: $(grep -m1 -i 'error' "$log" | cut -c1-80) |")
            continue
        fi
        feats=$(field 's/^training: .* \([0-9]*\) parameters.*/\1/p' "$log")
        wall=$(field 's/.*Elapsed (wall clock) time.*: //p' "$log")
        cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.0f s", s }' "$log")
        rss=$(field 's/.*Maximum resident set size (kbytes): //p' "$log")
        if [ "$opt" != newton ]; then
            # the first stage: its summary line "NAME: N iterations in S s, ..."
            st1=$(grep -m1 -E '^[a-z0-9_]+: [0-9]+ iterations in [0-9.]+ s, objective' "$log")
            it1=$(echo "$st1" | sed 's/^[a-z0-9_]*: \([0-9]*\) iterations.*/\1/')
            s1=$(echo "$st1" | sed 's/.* iterations in \([0-9.]*\) s.*/\1/')
            a1=$(echo "$st1" | sed 's/.* \([0-9]*\) active features of.*/\1/')
            rows+=("$(row "$set" "$opt" "$it1" "$feats" "$a1" "$(pers "$out/$name.l1.model")" \
                "${s1} s" "-" "$rss")")
            echo "${rows[-1]}" >&2
        fi
        iters=$(field 's/^trained: \([0-9]*\) iterations.*/\1/p' "$log")
        active=$(field 's/^trained: .* \([0-9]*\) active features of.*/\1/p' "$log")
        label=$opt
        [ "$opt" = newton ] || label=$opt+ft
        rows+=("$(row "$set" "$label" "$iters" "$feats" "$active" "$(pers "$out/$name.model")" \
            "$wall" "$cpu" "$rss")")
        echo "${rows[-1]}" >&2
    done
done

echo
echo "NETtalk, test fold $FOLD ($(date -u +%F), $(nproc) cores, --threads $THREADS, rho1 $RHO1, rho2 $RHO2;"
echo "X rows: the first stage of the X,lbfgs run (its own time; CPU not separable), X+ft: the run;"
echo "PER on the test part tagged by Viterbi and by posterior decoding, and the same on the dev part)"
echo
echo "| set    | optim.    | iter | features    | active  | PER      | PER post. | dev PER  | dev post. | wall     | CPU     | peak RSS  |"
echo "|--------|-----------|------|-------------|---------|----------|-----------|----------|-----------|----------|---------|-----------|"
printf '%s\n' "${rows[@]}"

# Table 2: the same OWL-QN iterations with the sparse, the dense and the
# automatic forward-backward, warm-started from the OWL-QN model of the set
# so that M = exp(lambda) - 1 has the sparsity of a trained model; CPU
# seconds (user + system: on a shared machine wall time measures the other
# jobs).  A training iteration also computes the gradient, whose bigram
# part costs Y^2 per position whatever M is; so, with TAGBENCH (make
# bench/tagbench), the forward-backward alone too, over the training set
# with that model.
[ -n "$FB_SETS" ] || exit 0
TAGBENCH=${TAGBENCH:-$(dirname "$CRFPIPE")/../bench/tagbench}
echo
echo "Forward-backward in training: $FB_ITERS OWL-QN iterations from the trained model (CPU s, median of $FB_REPS);"
echo "forward-backward alone over the training set (tagbench, s)"
echo
echo "| set    | train sparse | dense | auto | dense/sparse | fwd-bwd sparse | dense | dense/sparse |"
echo "|--------|--------------|-------|------|--------------|----------------|-------|--------------|"
for set in $FB_SETS; do
    init=$out/$set.owlqn.l1.model
    [ -s "$init" ] || { echo "| $set | (no $init: run OPTS=owlqn first) | | | | | | |"; continue; }
    declare -A t=()
    # FB_REPS rounds, the three modes alternating within each, and the
    # median per mode: one run's system time alone varies by seconds here
    # (the kernel compacting memory for huge pages on first touch)
    for rep in $(seq 1 "$FB_REPS"); do
        for mode in sparse dense auto; do
            [ -n "${REPORT_ONLY:-}" ] || $TIME -v "$CRFPIPE" train --template "$here/samples/nettalk/$set.tpl" \
                --columns $COLS --label phone --threads 1 --rho1 "$RHO1" --rho2 "$RHO2" \
                --init-model "$init" --max-iter "$FB_ITERS" --epsilon 0 --fb-mode $mode \
                --model "$out/$set.fb.model" "$out/train.txt" >"$out/$set.fb-$mode.$rep.log" 2>&1
        done
    done
    for mode in sparse dense auto; do
        t[$mode]=$(for rep in $(seq 1 "$FB_REPS"); do
                awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f\n", s }' \
                    "$out/$set.fb-$mode.$rep.log"
            done | sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    done
    fb="| | |"
    if [ -x "$TAGBENCH" ]; then
        [ -n "${REPORT_ONLY:-}" ] || "$TAGBENCH" "$init" "$out/train.txt" conll_reader $COLS \
            >"$out/$set.tagbench" 2>&1
        fb=$(sed -n 's/^forward-backward: *sparse \([0-9.]*\) s, dense \([0-9.]*\) s, dense\/sparse = \([0-9.]*\).*/\1 | \2 | \3/p' \
            "$out/$set.tagbench")
    fi
    printf '| %-6s | %12s | %5s | %4s | %12s | %s |\n' "$set" "${t[sparse]}" "${t[dense]}" \
        "${t[auto]}" "$(awk -v s="${t[sparse]}" -v d="${t[dense]}" 'BEGIN { printf "%.2f", d / s }')" "$fb"
done
