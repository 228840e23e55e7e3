#!/bin/sh
# Regenerates the fixtures of this directory with CRF++ 0.59 (its programs
# crf_learn and crf_test; CRFPP=directory holding them, default: PATH):
#   template     the template (written by hand, not generated)
#   model        crf_learn -t -f 3 -c 4 -e 1e-10 -p 1 on
#                ../wapiti-model/train.txt (word, PTB tag and UPOS columns
#                from the EWT excerpt), run to its optimum (a relative
#                decrease below 1e-10, one thread): the binary model
#   model.txt    the text model crf_learn -t writes beside it
#   expected.txt crf_test -v1 on ../wapiti-model/test.txt: each sentence's
#                probability, then each token with its label and marginal
#   expected-v2.txt  crf_test -v2: every label's marginal too
#   expected-n2.txt  crf_test -v1 -n 2: the two best labellings
#   expected-n1.txt  crf_test -v1 -n 1: the best labelling, headed "# 0 P"
#   expected-c05.txt crf_test -v1 -c 0.5: its cost factor, the scores halved
#   mira.tpl     a template for MIRA (written by hand)
#   mira-train.txt  a first sentence holding each UPOS label once, in CRF++'s
#                (byte) order, so that crfpipe numbers the labels as CRF++
#                does and Viterbi's ties go the same way; then the first 20
#                sentences of ../wapiti-model/train.txt
#   model-mira   crf_learn -a MIRA -c 0.3 -H 2 -p 1 on it (binary): CRF++'s
#                MIRA, steps bounded by C, sequences right twice shrunk
#   mira-iter.txt  how many iterations it ran
# tests/pipeline/crfpp_model.sh checks that crfpipe, given either model,
# tags test.txt as expected.txt says, that the same template behind #!crf++
# makes the features the model lists, and that crfpipe trained to CRF++'s
# objective reaches the same weights.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${CRFPP:+$CRFPP/}
"${bin}crf_learn" -t -f 3 -c 4 -e 0.0000000001 -p 1 "$here/template" "$here/../wapiti-model/train.txt" "$here/model"
"${bin}crf_test" -v1 -m "$here/model" "$here/../wapiti-model/test.txt" >"$here/expected.txt"
"${bin}crf_test" -v2 -m "$here/model" "$here/../wapiti-model/test.txt" >"$here/expected-v2.txt"
"${bin}crf_test" -v1 -n 2 -m "$here/model" "$here/../wapiti-model/test.txt" >"$here/expected-n2.txt"
"${bin}crf_test" -v1 -n 1 -m "$here/model" "$here/../wapiti-model/test.txt" >"$here/expected-n1.txt"
"${bin}crf_test" -v1 -c 0.5 -m "$here/model" "$here/../wapiti-model/test.txt" >"$here/expected-c05.txt"
LC_ALL=C awk 'NF { print $3 }' "$here/../wapiti-model/train.txt" | LC_ALL=C sort -u |
    awk '{ printf "label%d X %s\n", NR, $1 } END { print "" }' >"$here/mira-train.txt"
awk 'BEGIN { RS = ""; ORS = "\n\n" } NR <= 20' "$here/../wapiti-model/train.txt" \
    >>"$here/mira-train.txt"
"${bin}crf_learn" -a MIRA -c 0.3 -H 2 -p 1 "$here/mira.tpl" "$here/mira-train.txt" \
    "$here/model-mira" | grep -c '^iter=' >"$here/mira-iter.txt"
