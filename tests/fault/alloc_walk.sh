#!/bin/sh
# Allocation-failure walk: each of `crfpipe train` (lbfgs, seen label pairs
# only, and AROW), `tag`, `train` and `tag` of
# CRFsuite data, `run` of GATE spans to labels, `eval --spans`, `convert` (and back), `run`
# (one input, and two), `train --cv-folds` (one trainer, and a chain), `train
# --min-freq`, `model info` and `model top`
# is run once per N with the N+1-th allocation after main() failing, and
# every one after it (failmalloc.so).  For every N the run must either
# succeed with the same output as a run without faults, or fail cleanly:
# exit status 1, a message saying "out of memory", and the output file
# untouched (it holds earlier contents that must survive) with no temporary
# file left.  A signal or another status is a failure.
# make check samples N (about 60 runs per command, evenly spread, so that
# the test stays well under a minute); make fault (FAULT_FULL=1) tries
# every N, under valgrind when FAULT_VALGRIND allows (FAULT_STEP=K: every
# K-th N only; FAULT_CMDS="cv tag": only those commands).
. "$top_srcdir/tests/fault/common.sh"

setup_models
full=${FAULT_FULL:-0}
if [ "$full" = 1 ] && [ "${FAULT_VALGRIND:-auto}" != no ] && command -v valgrind >/dev/null; then
    # valgrind must see the real program, not libtool's wrapper script.
    real=$(sed -n "s/^ *program='\(.*\)'$/\1/p" "$CRFPIPE" | head -n 1)
    if [ -n "$real" ] && [ -x "$(dirname "$CRFPIPE")/.libs/$real" ]; then
        CRFPIPE="$(dirname "$CRFPIPE")/.libs/$real"
        LD_LIBRARY_PATH="$top_builddir/core/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        export LD_LIBRARY_PATH
    fi
    # Blocks still reachable at exit are the libraries' caches; a
    # definitely lost block is a leak (status 99).
    # somalloc=NONE: valgrind replaces malloc only in libc, so that the
    # interposer above it still sees (and fails) the calls.
    RUNNER="valgrind -q --soname-synonyms=somalloc=NONE --suppressions=$top_srcdir/tests/fault/valgrind.supp --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99"
    echo "under valgrind (memcheck, leak check)"
fi

# Problems in code this test cannot fix (third-party libraries, files owned
# elsewhere), recognised by a pattern in the backtrace of the first failed
# allocation (FAILMALLOC_TRACE).  In make check they are reported as KNOWN
# and do not fail the test; make fault (FAULT_FULL=1) fails on them too.
# Each line: PATTERN<TAB>description.  None is open: libxml2's RELAX NG code
# and ICU's regex compiler, which crash on a failed allocation, run in
# reserve sections (core/include/crfpipe/alloc.h).
known_issues=""

# trace CMD N: the frames of the failed allocation, on one line.
trace() {
    printf '%s\n' "$SENTINEL" >"$tmp/trace.out"
    (ulimit -t "${FAULT_CPU_LIMIT:-300}"
     FAILMALLOC_TRACE=1 FAILMALLOC_N=$2 LD_PRELOAD="$FAILMALLOC" run_cmd "$1" "$tmp/trace.out") \
        2>&1 >/dev/null | sed -n '/^failmalloc: failing/,/__libc_start_main/p' |
        sed -e 1d -e 's/^.*[/]//' -e 's/\[0x[0-9a-f]*\]$//' | grep -v '^failmalloc' | tr '\n' ' '
    rm -f "$tmp/trace.out" "$tmp/trace.out".tmp.*
}
known=0 nomsg=0
# problem CMD N WHAT: a failure, unless the backtrace shows a known issue.
problem() {
    frames=$(trace "$1" "$2")
    issue=$([ -n "$known_issues" ] && printf '%s\n' "$known_issues" | while IFS='	' read -r pat desc; do
        if printf '%s' "$frames" | grep -q -- "$pat"; then printf '%s' "$desc"; break; fi
    done)
    if [ -n "$issue" ] && [ "$full" != 1 ]; then
        echo "KNOWN: $3 -- $issue"
        known=$((known + 1))
    else
        fail "$3${issue:+ (known: $issue)}
    reproduce: FAILMALLOC_N=$2 LD_PRELOAD=$FAILMALLOC crfpipe $1 ...
    failing allocation: $(printf '%s' "$frames" | cut -c1-400)"
    fi
}

total_runs=0
for cmd in ${FAULT_CMDS:-train seen arow mira rprop tag tagpos tagextra crfsuite crfsuitetag csexport csimport csall csweight cswperc csminfreq wapimport waptag wapraw wapdata ppimport pptimport ppall spans spandiff markup html \
    convert convertback run runmany cv cvchain minfreq modelinfo modeltop features}; do
    ref="$tmp/$cmd.ref"
    rm -f "$tmp/stats"
    if ! FAILMALLOC_STATS="$tmp/stats" LD_PRELOAD="$FAILMALLOC" run_cmd $cmd "$ref" 2>"$tmp/err"; then
        cat "$tmp/err" >&2
        fail "$cmd: fails without faults under the interposer"
        continue
    fi
    count=$(tail -n 1 "$tmp/stats")
    # convert is the cheapest and goes through the XML writer: every N.
    if [ -n "${FAULT_STEP:-}" ]; then step=$FAULT_STEP   # e.g. a quicker valgrind walk
    elif [ "$full" = 1 ]; then step=1
    else step=$(( (count + 59) / 60 )); fi
    echo "$cmd: $count allocations after main(); trying every ${step}th"
    out="$tmp/$cmd.out"
    n=0 ok=0 clean=0
    while [ "$n" -le "$count" ]; do
        printf '%s\n' "$SENTINEL" >"$out"
        rc=0
        # a CPU limit, so that a failure that makes a loop spin (export's
        # padding once did) fails the walk instead of hanging it
        (ulimit -t "${FAULT_CPU_LIMIT:-300}"
         FAILMALLOC_N=$n LD_PRELOAD="$FAILMALLOC" run_cmd $cmd "$out") >/dev/null 2>"$tmp/err" ||
            rc=$?
        what="$cmd with allocation $((n + 1)) failing (FAILMALLOC_N=$n)"
        case $rc in
        0)
            ok=$((ok + 1))
            # Training is deterministic on one thread: same model, byte
            # for byte.
            cmp -s "$out" "$ref" || problem $cmd $n "$what: succeeded with different output" ;;
        1)
            clean=$((clean + 1))
            if [ "$(cat "$out")" != "$SENTINEL" ]; then
                problem $cmd $n "$what: failed but changed the output file"
            elif grep -q "(out of memory for the details)" "$tmp/err"; then
                # The host could not format the message and kept only the
                # status, which is not ENOMEM: the cause was misread.
                problem $cmd $n "$what: reported as another error: $(grep 'for the details' "$tmp/err" | head -c 200)"
            elif ! grep -q "out of memory" "$tmp/err"; then
                msg=$(grep -v '^parser error\|^error : out of memory' "$tmp/err" | head -c 200)
                if [ "$full" = 1 ] || [ "${FAULT_MESSAGES:-1}" = 1 ]; then
                    problem $cmd $n "$what: failed without saying 'out of memory': $msg"
                else
                    # FAULT_MESSAGES=0: counted, not failed.
                    nomsg=$((nomsg + 1))
                fi
            fi ;;
        99) fail "$what: valgrind found errors:"; cat "$tmp/err" >&2 ;;
        152|137) problem $cmd $n "$what: still running after ${FAULT_CPU_LIMIT:-300} s of CPU (killed): a loop that does not end" ;;
        *) problem $cmd $n "$what: exit status $rc: $(grep -v '^parser error\|^error : out of memory' "$tmp/err" | head -c 200)" ;;
        esac
        for f in "$out".tmp.*; do
            if [ -e "$f" ]; then
                # A crash cannot clean up; a clean failure must.
                [ "$rc" -le 1 ] && fail "$what: temporary file left behind: $f"
                rm -f "$f"
            fi
        done
        n=$((n + step))
        total_runs=$((total_runs + 1))
    done
    echo "$cmd: $ok succeeded, $clean failed cleanly"
done
echo "$total_runs runs; $known known issue(s) hit; ${nomsg:-0} clean failure(s) whose message did not say 'out of memory'"
finish
