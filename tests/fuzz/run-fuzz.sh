#!/bin/sh
# make fuzz: run each libFuzzer target for SECONDS and report.
#   run-fuzz.sh ABS_BUILDDIR ABS_SRCDIR SECONDS TARGET...
# Each target fuzzes with fuzz-work/TARGET/corpus as its working corpus
# (new inputs go there) plus the tree's seeds; crash-*, leak-*, oom-* and
# timeout-* files land in fuzz-work/TARGET/.  Exit status 1 if any target
# found something.
set -u
build=$1 src=$2 secs=$3
shift 3
found=0
report=""
for t in "$@"; do
    work="$build/fuzz-work/$t"
    mkdir -p "$work/corpus"
    log="$work/fuzz.log"
    # -rss_limit_mb: a model file can legitimately ask for a few GB (its
    # sizes are checked against the file, not against RAM); stay below what
    # a 2-core CI machine has.  -timeout: one input must not take 10 s.
    "$build/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$work/" \
        "$work/corpus" "$src/tests/fuzz/corpus/$t" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    if [ "$rc" -eq 0 ]; then
        line="$t: clean for ${secs}s, ${execs:-?} runs, ${cov:-cov: ?}"
    else
        found=1
        line="$t: FOUND A PROBLEM (exit $rc) after ${execs:-?} runs; see $log and $work/"
        grep -m 3 -E 'ERROR|fuzz oracle|SUMMARY' "$log" | sed 's/^/    /'
    fi
    echo "$line"
    report="$report$line
"
done
echo "---- fuzz summary (${secs}s per target)"
printf '%s' "$report"
exit $found
