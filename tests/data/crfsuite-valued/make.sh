#!/bin/sh
# Regenerates the fixtures of this directory with CRFsuite 0.12 (the
# `crfsuite` program; CRFSUITE=path/to/crfsuite): as ../crfsuite-model,
# with attribute values (CRFsuite's "name:weight"), which scale their
# features:
#   train.crfsuite, test.crfsuite  CRFsuite data made from the EWT excerpt of
#                                  samples/pos (the first 60 training and
#                                  40 test sentences): per word its lower
#                                  case (weight 1, not written), its suffix
#                                  (0.5), its length / 4, its share of
#                                  capitals, its digits (a count, 0 included),
#                                  a title-case attribute of weight -1.5, a
#                                  shape of either sign (capitals minus
#                                  other letters, over the length), the
#                                  previous word (2) and an attribute of
#                                  weight 0 everywhere
#   model.crfsuite                 crfsuite learn -p c2=1 -p max_iterations=1000
#                                  -p delta=1e-9 (to the optimum more closely)
#                                  -p feature.minfreq=-1e9: CRFsuite keeps a
#                                  feature only when the values of its
#                                  occurrences sum to feature.minfreq (0 by
#                                  default) or more, which drops every feature
#                                  of a negative attribute; crfpipe keeps them,
#                                  and so CRFsuite is asked to
#   loss.txt                       the last "Loss:" line of its log
#   expected.txt                   crfsuite tag -p -i: each sequence's
#                                  probability, each token's label and marginal
#   expected-all.txt               crfsuite tag -r -i -l: each token's gold
#                                  label, label and marginal, and every
#                                  label's marginal
# tests/pipeline/crfsuite_model.sh checks that crfpipe, given model.crfsuite,
# tags test.crfsuite as expected.txt says, and that trained on
# train.crfsuite it reaches CRFsuite's optimum.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pos=$here/../../../samples/pos
CRFSUITE=${CRFSUITE:-crfsuite}
mk() { # conllu sentences > crfsuite data
    awk -F'\t' -v max="$2" '
        function esc(s) { gsub(/\\/, "\\\\", s); gsub(/:/, "\\:", s); return s }
        function flush(   t, line, s, caps, digs, low, i, c) {
            if (n_ == 0) return
            if (++sents > max) exit
            for (t = 1; t <= n_; t++) {
                s = w[t]; caps = 0; digs = 0; low = 0
                for (i = 1; i <= length(s); i++) {
                    c = substr(s, i, 1)
                    if (c ~ /[A-Z]/) caps++
                    if (c ~ /[a-z]/) low++
                    if (c ~ /[0-9]/) digs++
                }
                line = y[t] "\tw=" esc(tolower(s))
                line = line "\tsuf3=" esc(substr(s, length(s) > 2 ? length(s) - 2 : 1)) ":0.5"
                line = line "\tlen:" length(s) / 4
                line = line "\tcaps:" caps / length(s)
                line = line "\tdigits:" digs
                if (s ~ /^[A-Z]/) line = line "\ttitle:-1.5"
                line = line "\tshape:" (caps - low) / length(s)
                line = line "\tw-1=" esc(t > 1 ? tolower(w[t - 1]) : "<s>") ":2"
                line = line "\tnever:0"
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
"$CRFSUITE" learn -m "$here/model.crfsuite" -p c2=1 -p max_iterations=1000 -p delta=1e-9 \
    -p feature.minfreq=-1e9 "$here/train.crfsuite" |
    grep '^Loss:' | tail -n 1 >"$here/loss.txt"
"$CRFSUITE" tag -p -i -m "$here/model.crfsuite" "$here/test.crfsuite" >"$here/expected.txt"
"$CRFSUITE" tag -r -i -l -m "$here/model.crfsuite" "$here/test.crfsuite" >"$here/expected-all.txt"
# minfreq.txt: per CRFsuite feature.minfreq F (a feature kept when its
# values times its sequences' weights sum to F or more), the number of
# features it made and its optimum: "F FEATURES LOSS";
# model-minfreq.crfsuite: the model of F = 1.5
for f in 0 1.5; do
    m=""; [ "$f" = 1.5 ] && m="-m $here/model-minfreq.crfsuite"
    # shellcheck disable=SC2086
    "$CRFSUITE" learn $m -p c2=1 -p max_iterations=1000 -p delta=1e-9 -p feature.minfreq="$f" \
        "$here/train.crfsuite" |
        awk -v f="$f" '/^Number of features:/ { n = $4 } /^Loss:/ { l = $2 } END { print f, n, l }'
done >"$here/minfreq.txt"
