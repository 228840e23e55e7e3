#!/bin/sh
# Distributed batch training: mpirun -np 2 gives the single-process model.
# - L-BFGS: the objective trajectory equals the single-process one to 1e-9
#   (relative) over 20 iterations, the dictionary and layout are the same
#   (so the model files list the same weights, in the same order), the
#   predictions are the same;
# - with a dev set, the dev errors (summed over the ranks' shares) agree;
# - a format the readers cannot cut (XML: every rank reads all of it and
#   keeps every second sentence) gives the same trajectory and layout;
# - 4 ranks (the shared-memory sum by slices) agree as well, and so does
#   L-BFGS unsharded (--shard false: every rank runs it on whole vectors);
# - with --min-freq, the job keeps the observations the single process keeps;
# - with --all-states/--all-transitions false, it trains the same seen pairs;
# - weighted sequences (CRFsuite's @weight) give the single process's
#   trajectory too, also with CRFsuite's feature.minfreq on them;
# - a job of one rank writes exactly the plain run's model.
. "$top_srcdir/tests/mpi/common.sh"

train() { # LOG MODEL [options...] : single run or the job given by $RUN
    local log=$1 model=$2
    shift 2
    $RUN "$CRFPIPE" --verbose train --template "$TPL" --label upos --model "$model" --threads 1 \
        --max-iter 20 "$@" 2>"$log"
}

RUN= train "$tmp/l1" "$tmp/m1" "$DATA" || { cat "$tmp/l1"; fail "single-process run"; }
RUN="mpi 2" train "$tmp/l2" "$tmp/m2" "$DATA" || { cat "$tmp/l2"; fail "2-rank run"; }
grep -q 'mpi: 2 ranks' "$tmp/l2" || fail "the job did not run as 2 ranks"
[ "$(grep -c 'model written' "$tmp/l2")" = 1 ] || fail "not exactly one rank wrote the model"
same_trajectory "$tmp/l1" "$tmp/l2" 1e-9 20
grep -q 'lbfgs: sharded: this rank updates weights 0 to ' "$tmp/l2" ||
    fail "L-BFGS did not shard its vectors across the 2 ranks"
layout "$tmp/m1" >"$tmp/d1"
layout "$tmp/m2" >"$tmp/d2"
cmp -s "$tmp/d1" "$tmp/d2" || fail "the 2-rank model's labels, observations or layout differ"
"$CRFPIPE" tag --model "$tmp/m1" "$top_srcdir/samples/pos/test.conllu" >"$tmp/t1"
"$CRFPIPE" tag --model "$tmp/m2" "$top_srcdir/samples/pos/test.conllu" >"$tmp/t2"
cmp -s "$tmp/t1" "$tmp/t2" || fail "the two models tag the test set differently"

# 4 ranks: more than 3 on a machine take the other shared-memory sum (each
# rank adds a slice, all copy the result)
RUN="mpi 4" train "$tmp/l8" "$tmp/m8" "$DATA" || { cat "$tmp/l8"; fail "4-rank run"; }
same_trajectory "$tmp/l1" "$tmp/l8" 1e-9 20
# the unsharded optimizer (every rank runs it on whole vectors) as well
RUN="mpi 2" train "$tmp/l9" "$tmp/m9" --shard false "$DATA" || { cat "$tmp/l9"; fail "unsharded run"; }
grep -q 'lbfgs: sharded' "$tmp/l9" && fail "shard=false sharded all the same"
same_trajectory "$tmp/l1" "$tmp/l9" 1e-9 20
layout "$tmp/m8" >"$tmp/d8"
cmp -s "$tmp/d1" "$tmp/d8" || fail "the 4-rank model's layout differs"

# dev set: each rank scores its share, the counts are summed
DEV=$top_srcdir/samples/pos/dev.conllu
RUN= train "$tmp/l3" "$tmp/m3" --max-iter 5 --dev "$DEV" "$DATA" || fail "single run with --dev"
RUN="mpi 2" train "$tmp/l4" "$tmp/m4" --max-iter 5 --dev "$DEV" "$DATA" ||
    { cat "$tmp/l4"; fail "2-rank run with --dev"; }
# The dev set has the same size seen whole or in shares, and the error
# counts agree (a Viterbi tie broken differently by weights equal to 1e-12
# may move a token or two in the first iterations, where many labels tie).
grep '^dev: [0-9]* sequences' "$tmp/l3" >"$tmp/n3"
grep '^dev: [0-9]* sequences' "$tmp/l4" >"$tmp/n4"
[ -s "$tmp/n3" ] && cmp -s "$tmp/n3" "$tmp/n4" || fail "the dev set's size differs: $(cat "$tmp/n3" "$tmp/n4")"
# the dev sentences left out for labels the training data lacks are counted
# over the ranks: one summary, with the single run's figures
grep -o 'dev: [0-9]* of [0-9]* sentences ([0-9]* tokens) left out' "$tmp/l3" >"$tmp/u3" || true
grep -o 'dev: [0-9]* of [0-9]* sentences ([0-9]* tokens) left out' "$tmp/l4" >"$tmp/u4" || true
cmp -s "$tmp/u3" "$tmp/u4" && [ "$(wc -l <"$tmp/u4")" -le 1 ] ||
    fail "dev sentences left out: $(cat "$tmp/u3") vs $(cat "$tmp/u4")"
sed -n 's/.*dev-err *\([0-9.]*\)%.*/\1/p' "$tmp/l3" >"$tmp/e3"
sed -n 's/.*dev-err *\([0-9.]*\)%.*/\1/p' "$tmp/l4" >"$tmp/e4"
[ "$(wc -l <"$tmp/e3")" = 5 ] && [ "$(wc -l <"$tmp/e4")" = 5 ] || fail "not 5 dev evaluations"
paste "$tmp/e3" "$tmp/e4" | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 0.1) bad = 1 }
    END { exit bad }' || { paste "$tmp/e3" "$tmp/e4" >&2; fail "dev errors differ by more than 0.1 %"; }
tail -n 1 "$tmp/e3" >"$tmp/last3"
tail -n 1 "$tmp/e4" >"$tmp/last4"
cmp -s "$tmp/last3" "$tmp/last4" || fail "the last dev error differs"

# XML input: read whole by every rank, every second sentence kept
"$CRFPIPE" convert --from conllu --to xml "$DATA" "$tmp/data.xml"
RUN= train "$tmp/l5" "$tmp/m5" "$tmp/data.xml" || fail "single run on XML"
RUN="mpi 2" train "$tmp/l6" "$tmp/m6" "$tmp/data.xml" || { cat "$tmp/l6"; fail "2-rank run on XML"; }
same_trajectory "$tmp/l5" "$tmp/l6" 1e-9 20
layout "$tmp/m5" >"$tmp/d5"
layout "$tmp/m6" >"$tmp/d6"
cmp -s "$tmp/d5" "$tmp/d6" || fail "XML input: the 2-rank model's layout differs"

# min-freq: the counts are summed over the ranks' shares, so the job keeps
# the single process's observations (each rank alone would keep fewer)
RUN= train "$tmp/l10" "$tmp/m10" --min-freq 3 "$DATA" || fail "single run with --min-freq"
RUN="mpi 2" train "$tmp/l11" "$tmp/m11" --min-freq 3 "$DATA" ||
    { cat "$tmp/l11"; fail "2-rank run with --min-freq"; }
grep -q '^min-freq 3: ' "$tmp/l10" || fail "no min-freq line in the single run's log"
[ "$(grep '^min-freq 3: ' "$tmp/l10")" = "$(grep '^min-freq 3: ' "$tmp/l11" | head -n 1)" ] ||
    fail "min-freq kept other observations in the job: $(grep -h '^min-freq' "$tmp/l10" "$tmp/l11")"
same_trajectory "$tmp/l10" "$tmp/l11" 1e-9 20
layout "$tmp/m10" >"$tmp/d10"
layout "$tmp/m11" >"$tmp/d11"
cmp -s "$tmp/d10" "$tmp/d11" || fail "min-freq: the 2-rank model's layout differs"

# seen label pairs only: the ranks' marks are combined, so the job trains
# the single process's weights (each rank alone would mark fewer)
RUN= train "$tmp/l12" "$tmp/m12" --all-states false --all-transitions false "$DATA" ||
    fail "single run with seen pairs only"
RUN="mpi 2" train "$tmp/l13" "$tmp/m13" --all-states false --all-transitions false "$DATA" ||
    { cat "$tmp/l13"; fail "2-rank run with seen pairs only"; }
seen1=$(grep 'weights on label pairs' "$tmp/l12")
[ -n "$seen1" ] && [ "$seen1" = "$(grep 'weights on label pairs' "$tmp/l13" | head -n 1)" ] ||
    fail "seen pairs: the job marked others: $(grep -h 'weights on label pairs' "$tmp/l12" "$tmp/l13")"
same_trajectory "$tmp/l12" "$tmp/l13" 1e-9 20
layout "$tmp/m12" >"$tmp/d12"
layout "$tmp/m13" >"$tmp/d13"
cmp -s "$tmp/d12" "$tmp/d13" || fail "seen pairs: the 2-rank model's weights differ in place"

# weighted sequences (CRFsuite's @weight:W, tests/data/crfsuite-weighted):
# each rank weighs its share, so the job follows the single process
W=$top_srcdir/tests/data/crfsuite-weighted/train.crfsuite
wtrain() { # LOG MODEL [options...]
    local log=$1 model=$2
    shift 2
    $RUN "$CRFPIPE" --verbose train --features attributes --rho2 2 --threads 1 --max-iter 20 \
        --model "$model" "$@" "$W" 2>"$log"
}
RUN= wtrain "$tmp/l14" "$tmp/m14" || { cat "$tmp/l14"; fail "single run on weighted data"; }
RUN="mpi 2" wtrain "$tmp/l15" "$tmp/m15" || { cat "$tmp/l15"; fail "2-rank run on weighted data"; }
same_trajectory "$tmp/l14" "$tmp/l15" 1e-9 20
# the model records the job's count of weighted sequences, not a rank's
"$CRFPIPE" model dump "$tmp/m15" | grep -q 'sequence-weights	52 of 60 sequences' ||
    fail "the 2-rank model does not record the job's 52 of 60 weighted sequences"
RUN="mpi 2" "$CRFPIPE" --verbose train --features attributes --rho2 2 --threads 1 --max-iter 20 \
    --weight-feature '' --model "$tmp/m16" "$W" 2>"$tmp/l16" || fail "2-rank run, unweighted"
objectives "$tmp/l15" | tail -n 1 >"$tmp/o15"
objectives "$tmp/l16" | tail -n 1 >"$tmp/o16"
cmp -s "$tmp/o15" "$tmp/o16" && fail "the job's weighted and unweighted objectives are the same"

# CRFsuite's feature.minfreq on that data (label pairs' weighted sums): the
# ranks' sums are added, so the job keeps the single process's pairs
cs="--all-states false --all-transitions false --min-freq 3"
RUN= wtrain "$tmp/l17" "$tmp/m17" $cs || { cat "$tmp/l17"; fail "single run, pairs' min-freq"; }
RUN="mpi 2" wtrain "$tmp/l18" "$tmp/m18" $cs || { cat "$tmp/l18"; fail "2-rank run, pairs' min-freq"; }
seen1=$(grep 'weights on label pairs' "$tmp/l17")
[ -n "$seen1" ] && [ "$seen1" = "$(grep 'weights on label pairs' "$tmp/l18" | head -n 1)" ] ||
    fail "pairs' min-freq: the job kept others: $(grep -h 'weights on label pairs' "$tmp/l17" "$tmp/l18")"
case $seen1 in *": 867 of "*) ;; *) fail "pairs' min-freq: not CRFsuite's 867 features: $seen1" ;; esac
same_trajectory "$tmp/l17" "$tmp/l18" 1e-9 20

# one rank = one process
RUN="mpi 1" train "$tmp/l7" "$tmp/m7" "$DATA" || fail "1-rank job"
cmp -s "$tmp/m1" "$tmp/m7" || fail "a 1-rank job's model differs from the plain run's"
finish
