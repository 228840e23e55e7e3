#!/bin/bash
# CoNLL-2000 chunking (chunking.tpl): the cost of a regularisation path
# against cold OWL-QN runs, and the test error of every optimizer against
# its training time.
#
#  path:   crfpipe train --rho1-path $PATH_VALUES (each point warm-started),
#          then, back to back, one cold OWL-QN run per value of $COLD (the
#          bench's default rho1 and the path's last point), each under
#          /usr/bin/time: wall and CPU (user + sys) seconds, and the ratios.
#  curves: one run per optimizer with --report RUN.tsv, drawn together by
#          `crfpipe plot` (test error against training time, the monitor's
#          own scoring of the test set left out of the time).
#
# test.txt is given as --dev with --dev-patience 0: it is scored after every
# iteration (the error plotted, the path's table) but never stops a run or
# chooses anything.
# Usage: bench/regpath.sh DATA_DIR [THREADS]   (make bench DATA=../shared/data)
#        PARTS="path curves plot" (default all three; plot draws what curves
#        and path left in BENCH_OUT), BENCH_OUT=DIR (default bench-out)
set -euo pipefail
data=${1:?usage: regpath.sh DATA_DIR [THREADS]}/conll2000
threads=${2:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
CRFPIPE=${CRFPIPE:-$here/core/crfpipe}
PATH_VALUES=${PATH_VALUES:-2,1,0.5,0.25,0.1}
COLD=${COLD:-0.5 0.1}
BCD_SWEEPS=${BCD_SWEEPS:-6}
parts=${PARTS:-path curves plot}
out=${BENCH_OUT:-bench-out}
mkdir -p "$out"
[ -r "$data/train.txt" ] || { echo "no $data/train.txt" >&2; exit 1; }
TIME=/usr/bin/time
[ -x $TIME ] || { echo "bench needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
common=(--template "$here/samples/chunking/chunking.tpl" --columns word,pos,chunk
        --threads "$threads" --dev "$data/test.txt" --dev-patience 0)

# timed NAME ARGS...: crfpipe train under /usr/bin/time -f; "wall cpu" in $out/NAME.time
timed() {
    local name=$1
    shift
    echo "== $name" >&2
    $TIME -f '%e %U %S' -o "$out/$name.rusage" "$CRFPIPE" train "${common[@]}" "$@" \
        2>"$out/$name.log" || { tail -20 "$out/$name.log" >&2; exit 1; }
    awk '{ printf "%.1f %.1f\n", $1, $2 + $3 }' "$out/$name.rusage" >"$out/$name.time"
    sed -n 's/^trained: /  /p' "$out/$name.log" >&2
}
f1() { # model -> chunk F1 on test.txt
    "$CRFPIPE" tag --model "$1" --columns word,pos,chunk --threads 1 -o "$out/f1.tmp" \
        "$data/test.txt"
    "$CRFPIPE" eval "$out/f1.tmp" | sed -n 's/^chunk F1: //p'
    rm -f "$out/f1.tmp"
}

date_line="$(nproc) cores, $threads training threads, $(date -u '+%F %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"

if [[ " $parts " == *" path "* ]]; then
    timed path --rho1-path "$PATH_VALUES" --model "$out/path.model" \
        --path-report "$out/path.svg" --report "$out/path-run.tsv" -o "$out/path.tsv" \
        "$data/train.txt"
    read -r pw pc <"$out/path.time"
    cold_rows=""
    for r in $COLD; do
        timed "cold-$r" --rho1 "$r" --model "$out/cold-$r.model" --report "$out/cold-$r.tsv" \
            "$data/train.txt"
        read -r cw cc <"$out/cold-$r.time"
        it=$(sed -n 's/^trained: \([0-9]*\) iterations.*/\1/p' "$out/cold-$r.log")
        act=$(sed -n 's/^trained: .* \([0-9]*\) active features.*/\1/p' "$out/cold-$r.log")
        cold_rows+=$(printf '| cold OWL-QN ρ1 = %s | %s | %s | %s | %s | %s | %.2f | %.2f |' \
            "$r" "$it" "$act" "$(f1 "$out/cold-$r.model")" "$cw" "$cc" \
            "$(awk -v a="$pw" -v b="$cw" 'BEGIN { print a / b }')" \
            "$(awk -v a="$pc" -v b="$cc" 'BEGIN { print a / b }')")$'\n'
    done
    {
        echo "Regularisation path, CoNLL-2000 ($date_line)"
        echo
        echo "Path table (crfpipe train -o; dev = test.txt):"
        column -t -s $'\t' "$out/path.tsv" 2>/dev/null || cat "$out/path.tsv"
        echo
        pit=$(sed -n 's/^trained: \([0-9]*\) iterations.*/\1/p' "$out/path.log")
        echo "| run | iterations | active | test F1 | wall s | CPU s | path/cold wall | path/cold CPU |"
        echo "|---|---|---|---|---|---|---|---|"
        # each point's own model (MODEL, the point of lowest "dev" error,
        # would be chosen on the test set here)
        tail -n +2 "$out/path.tsv" | while IFS=$'\t' read -r rho it act _ _ s c _ model; do
            printf '| path point ρ1 = %s | %s | %s | %s | %s | %s | | |\n' "$rho" "$it" "$act" \
                "$(f1 "$model")" "$s" "$c"
        done
        printf '| path %s, whole run | %s | | | %s | %s | | |\n' "$PATH_VALUES" "$pit" "$pw" "$pc"
        printf '%s' "$cold_rows"
    } | tee "$out/regpath.txt"
fi

curve() { # name train-options...
    local name=$1
    shift
    timed "curve-$name" --model "$out/curve-$name.model" --report "$out/curve-$name.tsv" \
        "$@" "$data/train.txt"
}
if [[ " $parts " == *" curves "* ]]; then
    curve lbfgs
    curve owl-qn --rho1 0.5
    curve sgd-l1 --trainer sgd-l1
    curve bcd --trainer bcd --rho1 0.5 --max-iter "$BCD_SWEEPS"
    curve newton-cg --trainer newton-cg
    curve perceptron --trainer perceptron
fi

# the error-against-time plot and its table, from the runs' tables
if [[ " $parts " == *" plot "* ]]; then
    runs=()
    for r in lbfgs owl-qn sgd-l1 bcd newton-cg perceptron; do
        runs+=("$r=$out/curve-$r.tsv")
    done
    # the first iterations' errors (up to 70 %) would flatten the rest;
    # times from seconds (perceptron) to minutes (bcd): a log axis
    "$CRFPIPE" plot --title "CoNLL-2000 chunking: test error (test.txt as --dev) against training time" \
        --log-x --y-max "${Y_MAX:-6.5}" -o "$out/error-time.svg" "${runs[@]}"
    "$CRFPIPE" plot --title "CoNLL-2000 chunking: test error (test.txt as --dev) against training CPU time" \
        --log-x --x cpu --y-max "${Y_MAX:-6.5}" -o "$out/error-cpu.svg" "${runs[@]}"
    {
        echo "Error against time, CoNLL-2000 ($date_line)"
        echo "| run | iterations | training s (wall, no scoring) | training CPU s (no scoring) | wall s | CPU s (whole run) | final test error | best test error (at training s) | test F1 |"
        echo "|---|---|---|---|---|---|---|---|---|"
        for r in "${runs[@]}"; do
            name=${r%%=*}
            tsv=${r#*=}
            base=$(basename "$tsv" .tsv)
            read -r w c <"$out/$base.time"
            awk -F'\t' -v n="$name" -v w="$w" -v c="$c" -v f1="$(f1 "$out/$base.model")" 'NR > 1 {
                    k++; t = $7; e = $11; cpu = $14
                    if (best == "" || e < best) { best = e; bt = $7 }
                } END { printf "| %s | %d | %.1f | %.1f | %s | %s | %.3f %% | %.3f %% (%.1f s) | %s |\n",
                        n, k, t, cpu, w, c, 100 * e, 100 * best, bt, f1 }' "$tsv"
        done
    } | tee "$out/curves.txt"
fi
