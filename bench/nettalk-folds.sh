#!/bin/bash
# NETtalk over several test folds, averaged as the paper averages its ten
# (Lavergne, Cappé & Yvon 2010, Table 4: "10-fold average"): runs
# bench/nettalk.sh once per fold (test = fold K, dev = fold K+1, train =
# the other eight) and prints, per set and optimizer, the mean PER over the
# folds with its standard error (Viterbi and posterior decoding, and the
# same on the dev folds, where the decoding is chosen), and the mean
# iterations and active features.  A single fold's PER near 18 % has a standard error of about
# 0.3 %, the spread between folds is larger still: one fold cannot tell
# 18.4 % from 17.8 %.
#
#   bench/nettalk-folds.sh DATA [OUT]  (make bench-nettalk-folds DATA=../shared/data)
#
# Environment: FOLDS (default "0 1 2 3 4 5 6 7 8 9"), and SETS, OPTS,
# THREADS, RHO1, RHO2 as bench/nettalk.sh takes them (default here: SETS
# "1-grm", OPTS "owlqn sgd"); Table 2 is not run.
set -euo pipefail
data=${1:?usage: nettalk-folds.sh DATA [OUT]}
out=${2:-bench-out/nettalk-folds}
here=$(cd "$(dirname "$0")/.." && pwd)
FOLDS=${FOLDS:-0 1 2 3 4 5 6 7 8 9}
export SETS=${SETS:-1-grm} OPTS=${OPTS:-owlqn sgd} FB_SETS=
mkdir -p "$out"
for k in $FOLDS; do
    echo "=== fold $k" >&2
    # a fold whose table is complete is kept (an interrupted run resumes)
    if ! grep -q '^| set ' "$out/fold-$k.table" 2>/dev/null; then
        FOLD=$k bash "$here/bench/nettalk.sh" "$data" "$out/fold-$k" >"$out/fold-$k.table"
    fi
done
echo
echo "NETtalk, mean over test folds $FOLDS ($(date -u +%F); bench/nettalk.sh per fold)"
echo
echo "| set    | optim.    | folds | iter (mean) | active (mean) | PER mean ± s.e. | PER post. | dev PER | dev post. | PER per fold |"
echo "|--------|-----------|-------|-------------|---------------|-----------------|-----------|---------|-----------|--------------|"
# the fold tables' rows: | set | opt | iter | features | active | PER % | PER post. % |
# dev PER % | dev post. % | ...
for k in $FOLDS; do
    grep -E '^\| [0-9a-z+-]+ +\| [a-z+]+ +\| +[0-9]+ \|' "$out/fold-$k.table" |
        awk -F'|' -v k="$k" '{ for (i = 2; i <= 10; i++) gsub(/[ %]/, "", $i)
                               print $2, $3, k, $4, $6, $7, $8, $9, $10 }'
done | sort -k1,1 -k2,2 -s | awk '
    function se(s, ss, n,   m) { m = s / n; return n > 1 ? sqrt((ss - n * m * m) / (n - 1) / n) : 0 }
    function flush() {
        if (n == 0) return
        printf "| %-6s | %-9s | %5d | %11.1f | %13.0f | %7.2f ± %.2f %% | %.2f ± %.2f %% | %.2f %% | %.2f %% | %s |\n",
            set, opt, n, it / n, act / n, s / n, se(s, ss, n), sp / n, se(sp, ssp, n), d / n, dp / n, list
    }
    { if ($1 != set || $2 != opt) { flush(); set = $1; opt = $2; n = s = ss = sp = ssp = d = dp = it = act = 0; list = "" }
      n++; s += $6; ss += $6 * $6; sp += $7; ssp += $7 * $7; d += $8; dp += $9; it += $4; act += $5
      list = list (list == "" ? "" : " ") $6 }
    END { flush() }'
