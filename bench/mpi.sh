#!/bin/bash
# Cost of distributed training on this machine, and its projection.
#
# Trains CoNLL-2000 train.txt with samples/chunking/chunking.tpl (L-BFGS,
# a fixed number of iterations, --epsilon 0 so every run does the same
# work) as
#   A  1 process  x 2 threads
#   B  2 ranks    x 1 thread   (mpirun -np 2; L-BFGS sharded across them)
#   C  1 process  x 1 thread   (what one rank's computation costs alone)
# alternating the runs REPEATS times (the machine is shared: speed varies
# by 10-30 % from one minute to the next), and prints seconds per iteration,
# rank 0's split of B into computation, waiting for the other rank and
# transfer, bytes moved, peak RSS and training-data size per rank, whether
# A and B agree (objective trajectory, chunk F1), and the projection to 8-64
# nodes on a 10 Gb/s network (README, "Training past one machine").
#
# Times are of the steady state: iterations SKIP+1 .. ITERS (default 11..30),
# after the L-BFGS history has filled (its first iterations also pay for
# touching 2m fresh vectors, which a short run would count).
#
# Usage: bench/mpi.sh DATA_DIR [ITERS] [REPEATS] [SKIP]
#   (make bench-mpi DATA=../shared/data in an --with-mpi build)
set -euo pipefail
data=${1:?usage: mpi.sh DATA_DIR [ITERS] [REPEATS]}/conll2000
iters=${2:-30}
repeats=${3:-2}
skip=${4:-10}
here=$(cd "$(dirname "$0")/.." && pwd)
src=${top_srcdir:-$here}
CRFPIPE=${CRFPIPE:-$here/core/crfpipe}
out=${BENCH_OUT:-bench-mpi-out}
mkdir -p "$out"
[ -r "$data/train.txt" ] || { echo "no $data/train.txt" >&2; exit 1; }
"$CRFPIPE" --version | grep -q MPI || { echo "crfpipe was built without MPI" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A rank waiting in a collective yields its core: on a machine shared with
# other work a spinning rank would take the CPU from the one computing.
export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
TPL=$src/samples/chunking/chunking.tpl

run() { # NAME RANKS THREADS
    local name=$1 np=$2 th=$3 pre=()
    [ "$np" -gt 1 ] && pre=(mpirun --oversubscribe -np "$np")
    "${pre[@]}" "$CRFPIPE" --verbose train --template "$TPL" --columns word,pos,chunk \
        --threads "$th" --max-iter "$iters" --epsilon 0 --model "$out/$name.model" \
        "$data/train.txt" 2>"$out/$name.log" || { cat "$out/$name.log" >&2; exit 1; }
    # seconds per iteration of the steady state, from the progress lines'
    # elapsed times
    local t
    t=$(sed -n 's/^iter *\([0-9]*\) .*(\([0-9.]*\)s)$/\1 \2/p' "$out/$name.log" |
        awk -v k="$skip" '$1 == k { a = $2 } { n = $1; b = $2 } END { printf "%.4f", (b - a) / (n - k) }')
    # and the CPU seconds rank 0 (the process) used per iteration, less
    # those it burnt polling in MPI waits: on a machine shared with other
    # work, what the run would take on cores of its own (A's threads split
    # it, so A's estimate is half of it)
    local c
    c=$(awk -v k="$skip" '$1 == "iter" && $11 == "cpu" { v = $12 - $14; if ($2 == k) a = v; n = $2; b = v }
        END { printf "%.4f", (b - a) / (n - k) }' "$out/$name.log")
    echo "$name $t $c" >>"$out/times"
    echo "$t" >"$out/$name.last"
    echo "  $name: $t s/iteration, $c CPU s/iteration" >&2
}

: >"$out/times"
for r in $(seq "$repeats"); do
    echo "== round $r of $repeats" >&2
    run A 1 2
    run B 2 1
    run C 1 1
done

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
tA=$(awk '$1 == "A" { print $2 }' "$out/times" | median)
tB=$(awk '$1 == "B" { print $2 }' "$out/times" | median)
tC=$(awk '$1 == "C" { print $2 }' "$out/times" | median)
cA=$(awk '$1 == "A" { print $3 }' "$out/times" | median)
cB=$(awk '$1 == "B" { print $3 }' "$out/times" | median)
cC=$(awk '$1 == "C" { print $3 }' "$out/times" | median)
# B over A within each round: wall ($2) or CPU, A's halved ($3)
ratios() {
    awk -v f="$1" '$1 == "A" { a = f == 2 ? $2 : $3 / 2 } $1 == "B" { printf "%s%.2f", n++ ? " " : "", (f == 2 ? $2 : $3) / a }' "$out/times"
}
ratio() { ratios "$1" | tr ' ' '\n' | median | awk '{ printf "%+.0f %%", 100 * ($1 - 1) }'; }
dim=$(sed -n 's/^training: .* \([0-9]*\) parameters.*/\1/p' "$out/A.log")
mpiline=$(grep '^mpi: 2 ranks;' "$out/B.log")
# rank 0's cumulative seconds at iterations skip and iters (--verbose lines)
split() { # FIELD
    awk -v k="$skip" -v f="$1" '$1 == "iter" && $5 == "compute" {
        v = f == "compute" ? $6 : f == "wait" ? $8 : $10
        if ($2 == k) a = v; n = $2; b = v } END { printf "%.4f", b - a }' "$out/B.log"
}
tBlast=$(cat "$out/B.last")
comp=$(split compute)
wait_s=$(split wait)
xfer=$(split xfer)
evals=$(sed -n 's/^iter *\([0-9]*\) .* evals \([0-9]*\) .*/\1 \2/p' "$out/B.log" |
    awk -v k="$skip" '$1 > k { e += $2 } END { print e }')
perrank=$(sed -n 's/.*(MB): //p' <<<"$mpiline")
single=$(sed -n 's/^memory: //p' "$out/A.log")

# the same model? trajectories to 1e-9, and test-set F1 of both
traj() { sed -n 's/^iter \([0-9]*\) objective \([^ ]*\).*$/\1 \2/p' "$1"; }
maxrel=$(join <(traj "$out/A.log") <(traj "$out/B.log") | head -n 20 |
    awk '{ d = $2 - $3; if (d < 0) d = -d; r = d / ($2 < 0 ? -$2 : $2); if (r > m) m = r } END { printf "%.2g", m }')
f1() {
    "$CRFPIPE" eval --model "$1" --columns word,pos,chunk "$data/test.txt" 2>/dev/null |
        sed -n 's/.*chunk F1[^0-9]*\([0-9.]*\).*/\1/p' | head -n 1
}
fA=$(f1 "$out/A.model")
fB=$(f1 "$out/B.model")

cat <<EOF

CoNLL-2000 train.txt, chunking.tpl, L-BFGS, iterations $((skip + 1))-$iters (median of $repeats runs each)
parameters: $dim (one gradient: $(awk -v n="$dim" 'BEGIN { printf "%.1f", n * 8 / 1e6 }') MB)
  A  1 process  x 2 threads : $tA s/iteration
  B  2 ranks    x 1 thread  : $tB s/iteration  ($(awk -v a="$tA" -v b="$tB" 'BEGIN { printf "%+.0f %%", 100 * (b / a - 1) }') against A)
  C  1 process  x 1 thread  : $tC s/iteration
  B / A paired by round (each B run against the A run just before it; what the machine's
  drift from minute to minute leaves alone), median: wall $(ratio 2) ($(ratios 2)), CPU $(ratio 3)
CPU seconds per iteration (rank 0, less what it spent polling in MPI waits):
  A $cA (both threads; on 2 free cores about $(awk -v c="$cA" 'BEGIN { printf "%.4f", c / 2 }') s/iteration),
  B $cB (on a free core each: about $cB s/iteration, $(awk -v a="$cA" -v b="$cB" 'BEGIN { printf "%+.0f %%", 100 * (b / (a / 2) - 1) }') against A),
  C $cC
B, rank 0, last run, per iteration ($evals evaluations in $((iters - skip)) iterations):
  objective computation $(awk -v c="$comp" -v n="$((iters - skip))" 'BEGIN { printf "%.4f", c / n }') s,
  waiting for the other rank $(awk -v c="$wait_s" -v n="$((iters - skip))" 'BEGIN { printf "%.4f", c / n }') s,
  transfer $(awk -v c="$xfer" -v n="$((iters - skip))" 'BEGIN { printf "%.4f", c / n }') s,
  rest (L-BFGS's vector loops on this rank's half of the vectors, progress line) $(awk -v t="$tBlast" -v c="$comp" -v w="$wait_s" -v x="$xfer" -v n="$((iters - skip))" 'BEGIN { printf "%.4f", t - (c + w + x) / n }') s
  (that run: $tBlast s/iteration)
  bytes reduced per iteration: $(awk -v n="$dim" -v e="$evals" -v i="$((iters - skip))" 'BEGIN { printf "%.1f MB", n * 8 * e / i / 1e6 }') (ring allreduce: each rank sends and receives 2(P-1)/P of it)
memory, 1 process: $single
memory, per rank (peak RSS / training data / dictionary, MB): $perrank
same model: largest relative objective difference over the first 20 iterations $maxrel; chunk F1 $fA (A), $fB (B)

Projection to P machines of 2 cores (one rank of 2 threads each), 10 Gb/s (1.25 GB/s each
way), ring allreduce between machines, 30 us per message; from the CPU figures above:
one core needs C = compute + optimizer loops; B's ranks split the loops (sharded L-BFGS), so
the loops take about twice B's "rest" on one core.  Across machines the optimizer is not
sharded (each machine's ranks split it, every machine repeats it), so it takes the loops' time
over 2 threads whatever P:
EOF
awk -v n="$dim" -v ca="$cA" -v cc="$cC" -v tb="$tBlast" -v c="$comp" -v w="$wait_s" -v x="$xfer" -v it="$((iters - skip))" -v e="$evals" 'BEGIN {
    S = n * 8 * e / it
    opt = 2 * (tb - (c + w + x) / it); if (opt < 0) opt = 0
    comp = cc - opt; one = ca / 2
    printf "  one machine (A on 2 free cores): %.4f s/iteration; computation %.4f s on one core, optimizer loops %.4f s\n", one, comp, opt
    printf "  %5s %12s %12s %12s %12s %12s\n", "P", "compute s", "optimizer s", "allreduce s", "iteration s", "speed-up"
    for (P = 8; P <= 64; P *= 2) {
        comm = 2 * (P - 1) / P * S / 1.25e9 + 2 * (P - 1) * 30e-6
        t = comp / (2 * P) + opt / 2 + comm
        printf "  %5d %12.4f %12.4f %12.4f %12.4f %12.2f\n", P, comp / (2 * P), opt / 2, comm, t, one / t
    }
}'
