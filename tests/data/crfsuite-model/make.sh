#!/bin/sh
# Regenerates the fixtures of this directory with CRFsuite 0.12 (the
# `crfsuite` program; CRFSUITE=path/to/crfsuite):
#   train.crfsuite, test.crfsuite  CRFsuite data made from the EWT excerpt of
#                                  samples/pos (the first 60 training and
#                                  40 test sentences): attributes per
#                                  word, one of them with a colon (escaped) and
#                                  a backslash that starts no escape (kept)
#   model.crfsuite                 crfsuite learn -p c2=1 -p max_iterations=1000
#                                  (L-BFGS run until CRFsuite's own stopping
#                                  test): its defaults, seen pairs only
#   loss.txt                       the last "Loss:" line of its log: the
#                                  objective at the optimum
#   expected.txt                   crfsuite tag -p -i: each sequence's
#                                  probability, each token's label and marginal
#   expected-all.txt               crfsuite tag -r -i -l: each token's gold
#                                  label, label and marginal, and every
#                                  label's marginal
# tests/pipeline/crfsuite_model.sh and python/tests/test_interop.py check
# that crfpipe, given model.crfsuite, tags test.crfsuite as expected.txt says.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pos=$here/../../../samples/pos
CRFSUITE=${CRFSUITE:-crfsuite}
mk() { # conllu sentences > crfsuite data
    awk -F'\t' -v max="$2" '
        function esc(s) { gsub(/\\/, "\\\\", s); gsub(/:/, "\\:", s); return s }
        function flush(   t, line) {
            if (n_ == 0) return
            if (++sents > max) exit
            for (t = 1; t <= n_; t++) {
                line = y[t] "\tw=" esc(tolower(w[t])) "\tsuf3=" esc(substr(w[t], length(w[t]) > 2 ? length(w[t]) - 2 : 1))
                line = line "\tw-1=" esc(t > 1 ? tolower(w[t - 1]) : "<s>")
                line = line "\t" esc("a:b\\first=" substr(w[t], 1, 1))
                if (w[t] ~ /^[A-Z]/) line = line "\ttitle"
                print line
            }
            print ""
            n_ = 0
        }
        /^#/ { next }
        NF == 0 { flush(); next }
        $1 ~ /[-.]/ { next }
        { n_++; w[n_] = $2; y[n_] = $4 }
        END { flush() }' "$1"
}
mk "$pos/train.conllu" 60 >"$here/train.crfsuite"
mk "$pos/test.conllu" 40 >"$here/test.crfsuite"
"$CRFSUITE" learn -m "$here/model.crfsuite" -p c2=1 -p max_iterations=1000 "$here/train.crfsuite" |
    grep '^Loss:' | tail -n 1 >"$here/loss.txt"
"$CRFSUITE" tag -p -i -m "$here/model.crfsuite" "$here/test.crfsuite" >"$here/expected.txt"
"$CRFSUITE" tag -r -i -l -m "$here/model.crfsuite" "$here/test.crfsuite" >"$here/expected-all.txt"
# minfreq.txt: per CRFsuite feature.minfreq F (a feature kept when its
# values times its sequences' weights sum to F or more), the number of
# features it made and its optimum: "F FEATURES LOSS"
for f in 2 3; do
    m=""
    # shellcheck disable=SC2086
    "$CRFSUITE" learn $m -p c2=1 -p max_iterations=1000 -p delta=1e-9 -p feature.minfreq="$f" \
        "$here/train.crfsuite" |
        awk -v f="$f" '/^Number of features:/ { n = $4 } /^Loss:/ { l = $2 } END { print f, n, l }'
done >"$here/minfreq.txt"
