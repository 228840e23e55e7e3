#!/bin/sh
# Faults in a job: every rank stops, with a clear error, and no model (nor
# temporary model file) is written.
# - a rank killed (SIGKILL) in the middle of training;
# - a rank that meets bad input in its share of the file (the others are
#   fine): the job ends with that rank's message naming the file.
. "$top_srcdir/tests/mpi/common.sh"
TRAIN=$top_srcdir/samples/pos/train.conllu
cd "$tmp"

# rank_pid RANK: the pid of that rank of this test's job, found by the
# marker its environment inherits from mpirun.
export CRFP_TEST_JOB="$tmp"
rank_pid() {
    for d in /proc/[0-9]*; do
        env=$({ tr '\0' '\n' <"$d/environ"; } 2>/dev/null) || continue
        if printf '%s\n' "$env" | grep -qx "CRFP_TEST_JOB=$tmp" &&
            printf '%s\n' "$env" | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
            echo "${d#/proc/}"
            return 0
        fi
    done
    return 1
}

# 1. kill rank 1 once the job has done three iterations
timeout 300 mpirun --oversubscribe -np 2 "$CRFPIPE" train --template "$TPL" --label upos --model killed.model \
    --threads 1 --epsilon 0 --max-iter 1000 "$TRAIN" 2>kill.log &
job=$!
i=0
while ! grep -q '^iter    3' kill.log 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 1200 ] || ! kill -0 $job 2>/dev/null; then
        cat kill.log >&2
        fail "the job never reached iteration 3"
        break
    fi
    sleep 0.1
done
victim=$(rank_pid 1 || true)
if [ -n "$victim" ]; then
    kill -KILL "$victim"
    rc=0
    wait $job || rc=$?
    echo "job status after killing rank 1: $rc; what the job said:"
    grep -v '^iter' kill.log || true
    [ "$rc" -ne 0 ] || fail "the job succeeded although rank 1 was killed"
    [ "$rc" -ne 124 ] || fail "the job hung after rank 1 died (timeout)"
    [ ! -e killed.model ] || fail "a model was written although rank 1 died"
    ls killed.model.tmp* >/dev/null 2>&1 && fail "a temporary model file was left"
    grep -Eiq 'rank 1|process rank 1|another rank|signal 9|killed' kill.log ||
        { cat kill.log >&2; fail "no message says that rank 1 died"; }
    grep -q 'model written' kill.log && fail "a rank claims to have written the model"
else
    fail "could not find rank 1's process"
    kill $job 2>/dev/null || true
    wait $job 2>/dev/null || true
fi

# 2. bad input in rank 1's half only: a line with too few fields
awk 'NR == int(3 * n / 4) { print "this line is broken" } { print }' n="$(wc -l <"$TRAIN")" \
    "$TRAIN" >bad.conllu
rc=0
timeout 300 mpirun --oversubscribe -np 2 "$CRFPIPE" train --template "$TPL" --label upos --model bad.model \
    --threads 1 --max-iter 3 bad.conllu 2>bad.log || rc=$?
echo "job status with bad input in rank 1's share: $rc; what the job said:"
grep -v '^iter' bad.log || true
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "bad input: status $rc"
[ ! -e bad.model ] || fail "bad input: a model was written"
grep -q 'crfpipe\[rank 1\]: error: bad.conllu' bad.log ||
    { cat bad.log >&2; fail "bad input: no error from rank 1 naming the file"; }
finish
