#!/bin/sh
# make check: replay each fuzz target's seed corpus (tests/fuzz/corpus/T/)
# through the target, plain driver or libFuzzer binary alike.  Inputs are
# passed as files: a libFuzzer binary given a directory would start fuzzing.
set -u
: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"
fails=0
for t in xml pipeline template conll conllu model text ngram tagdict gate lexicon aligner plot tag \
    crfsuite spans crfsuite_model wapiti_model crfpp_model wapiti_data markup; do
    dir="$top_srcdir/tests/fuzz/corpus/$t"
    set -- "$dir"/*
    if [ ! -e "$1" ]; then
        echo "FAIL: no seed corpus in $dir" >&2
        fails=$((fails + 1))
        continue
    fi
    if ! "$top_builddir/tests/fuzz/fuzz_$t" "$@" >"fuzz-replay-$t.log" 2>&1; then
        echo "FAIL: fuzz_$t on its corpus:" >&2
        tail -n 40 "fuzz-replay-$t.log" >&2
        fails=$((fails + 1))
    else
        echo "fuzz_$t: $# seed(s) replayed"
    fi
    rm -f "fuzz-replay-$t.log"
done
[ "$fails" -eq 0 ]
