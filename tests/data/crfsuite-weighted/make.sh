#!/bin/sh
# Regenerates the fixtures of this directory with CRFsuite 0.12 (the
# `crfsuite` program; CRFSUITE=path/to/crfsuite): the data of
# ../crfsuite-model (made from the EWT excerpt of samples/pos), its
# training sequences weighed with CRFsuite's "@weight:W" declarations:
#   train.crfsuite   ../crfsuite-model/train.crfsuite, sequence n weighing
#                    2, 0.5, 0, 3.25, 1.5, 0.1 or 1 (n mod 7); the
#                    declaration comes before the sequence's first item,
#                    or after it (every third sequence), and weight 1 is
#                    written only sometimes; one declaration stands alone
#                    before a blank line, weighing nothing (CRFsuite
#                    resets the weight at each blank line)
#   test.crfsuite    ../crfsuite-model/test.crfsuite
#   model.crfsuite   crfsuite learn -p c2=1 -p max_iterations=1000
#                    -p delta=1e-9 (to the optimum more closely)
#   loss.txt         the last "Loss:" line of its log
#   expected.txt     crfsuite tag -p -i
#   expected-all.txt crfsuite tag -r -i -l
# tests/pipeline/crfsuite_model.sh checks that crfpipe, trained on
# train.crfsuite, reaches CRFsuite's weighted optimum, and tags as the
# imported model.crfsuite does.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../crfsuite-model
CRFSUITE=${CRFSUITE:-crfsuite}
awk 'BEGIN { split("1 2 0.5 0 3.25 1.5 0.1", W, " ") }
     function decl(n) { w = W[n % 7 + 1]; if (w != 1 || n % 2) print "@weight:" w }
     NF == 0 { if (open_) print ""; open_ = 0; next }
     { if (!open_) { n++; if (n == 5) print "@weight:7\n"; if (n % 3) decl(n) }
       print
       if (!open_ && n % 3 == 0) decl(n)
       open_ = 1 }
     END { if (open_) print "" }' "$src/train.crfsuite" >"$here/train.crfsuite"
cp "$src/test.crfsuite" "$here/test.crfsuite"
"$CRFSUITE" learn -m "$here/model.crfsuite" -p c2=1 -p max_iterations=1000 -p delta=1e-9 \
    "$here/train.crfsuite" | grep '^Loss:' | tail -n 1 >"$here/loss.txt"
"$CRFSUITE" tag -p -i -m "$here/model.crfsuite" "$here/test.crfsuite" >"$here/expected.txt"
"$CRFSUITE" tag -r -i -l -m "$here/model.crfsuite" "$here/test.crfsuite" >"$here/expected-all.txt"
# minfreq.txt: per CRFsuite feature.minfreq F (a feature kept when its
# values times its sequences' weights sum to F or more), the number of
# features it made and its optimum: "F FEATURES LOSS"
for f in 3; do
    m=""
    # shellcheck disable=SC2086
    "$CRFSUITE" learn $m -p c2=1 -p max_iterations=1000 -p delta=1e-9 -p feature.minfreq="$f" \
        "$here/train.crfsuite" |
        awk -v f="$f" '/^Number of features:/ { n = $4 } /^Loss:/ { l = $2 } END { print f, n, l }'
done >"$here/minfreq.txt"
