#!/bin/sh
# make fuzz: run each libFuzzer target and report.
#   run-fuzz.sh ABS_BUILDDIR ABS_SRCDIR SECONDS TARGET...
# Each target fuzzes with fuzz-work/TARGET/corpus as its working corpus
# (new inputs go there) plus the tree's seeds; crash-*, leak-*, oom-* and
# timeout-* files land in fuzz-work/TARGET/.  Exit status 1 if any target
# found something.
#
# SECONDS is wall time per target.  With FUZZ_CPU_SECONDS=N in the
# environment, each target instead runs in slices of SECONDS until it has
# used N seconds of CPU (user + system): on a shared machine wall time says
# little about how much fuzzing was done.  Every finished run appends a line
# to fuzz-work/record.txt (date, target, CPU seconds, runs, coverage,
# result), the campaign's log.
set -u
build=$1 src=$2 secs=$3
shift 3
cpu_goal=${FUZZ_CPU_SECONDS:-0}
found=0
report=""
record="$build/fuzz-work/record.txt"
mkdir -p "$build/fuzz-work"
# The host keeps accepted plugins resident; libltdl's handle bookkeeping
# for them is reachable only through libltdl (as in make check).
LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0"
export LSAN_OPTIONS

# cpu_now := CPU seconds (user + system) used so far by this shell's
# finished children.  `times` must run in this shell itself (in a command
# substitution it would report the subshell's children), so it writes to a
# file and the function sets a variable.
children_cpu() {
    times >"$build/fuzz-work/.times.$$"
    cpu_now=$(sed -n 2p "$build/fuzz-work/.times.$$" | awk '{
        t = 0
        for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
        printf "%d\n", t }')
}

for t in "$@"; do
    work="$build/fuzz-work/$t"
    mkdir -p "$work/corpus"
    log="$work/fuzz.log"
    children_cpu
    start_cpu=$cpu_now
    used=0 execs_total=0 slices=0 rc=0 cov=""
    while :; do
        # -rss_limit_mb: a model file can legitimately ask for a few GB (its
        # sizes are checked against the file, not against RAM); stay below
        # what a 2-core CI machine has.  -timeout: one input must not take
        # 10 s.
        "$build/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
            -print_final_stats=1 -artifact_prefix="$work/" \
            "$work/corpus" "$src/tests/fuzz/corpus/$t" >"$log" 2>&1
        rc=$?
        slices=$((slices + 1))
        e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
        execs_total=$((execs_total + ${e:-0}))
        c=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
        [ -n "$c" ] && cov=$c
        children_cpu
        used=$((cpu_now - start_cpu))
        [ "$rc" -ne 0 ] && break
        [ "$used" -ge "$cpu_goal" ] && break
    done
    if [ "$rc" -eq 0 ]; then
        line="$t: clean for ${used} CPU s in ${slices} run(s) of ${secs}s, ${execs_total} inputs, ${cov:-cov: ?}"
        result=clean
    else
        found=1
        result="exit $rc"
        line="$t: FOUND A PROBLEM (exit $rc) after ${used} CPU s, ${execs_total} inputs; see $log and $work/"
        grep -m 3 -E 'ERROR|fuzz oracle|SUMMARY' "$log" | sed 's/^/    /'
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$t" "$used" "$execs_total" \
        "${cov:-cov: ?}" "$result" >>"$record"
    echo "$line"
    report="$report$line
"
done
echo "---- fuzz summary"
printf '%s' "$report"
rm -f "$build/fuzz-work/.times.$$"
exit $found
