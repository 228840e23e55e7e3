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
