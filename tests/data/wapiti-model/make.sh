#!/bin/sh
# Regenerates the fixtures of this directory with Wapiti 1.5 (the `wapiti`
# program; WAPITI=path/to/wapiti):
#   train.txt, test.txt  word, PTB tag and UPOS columns made from the EWT
#                        excerpt of samples/pos (the first 60 training and
#                        40 test sentences)
#   patterns.txt         the pattern file (written by hand, not generated)
#   model.wap            wapiti train -p patterns.txt (its defaults: L-BFGS
#                        with the elastic net, rho1 0.5, rho2 0.0001)
#   viterbi.txt          wapiti label -s: each sequence's best score, then
#                        each token with the best labelling
#   posterior.txt        wapiti label -p -s: posterior decoding, each token's
#                        label and its marginal
#   maxent.wap, maxent-viterbi.txt, maxent-posterior.txt
#                        the same with a maximum-entropy model (wapiti train
#                        -T maxent)
#   raw.awk              makes Wapiti's data with its observations from
#                        train.txt and test.txt (written by hand)
#   raw.wap, raw-viterbi.txt, raw-posterior.txt
#                        a model trained on that data without patterns, and
#                        wapiti label -c -s / -c -p -s on the test data, each
#                        line cut to its label and score (the input lines are
#                        made again by raw.awk)
#   me.wap, me-viterbi.txt, me-posterior.txt
#                        the same with wapiti train --me (every line a sample)
#   raw-nbest.txt        wapiti label -c -s -n 2 with raw.wap: the two best
#                        labellings of each sequence, cut as above
#   l1.wap, l1-obj.txt   trained to convergence with the elastic net
#                        (--rho1 0.5 --rho2 1, -e 0 -w 50 -i 3000, one
#                        thread, compacted: -c), and the last line of its
#                        log (objective and active features)
#   l2-obj.txt           the last log line of the same with --rho1 0 (the
#                        model, of every feature, is not kept)
#   rprop-obj.txt, rpropm-obj.txt
#                        wapiti train -a rprop and -a rprop- (--rho1 0
#                        --rho2 1 -e 0 -i 200, one thread): "ITERATION
#                        OBJECTIVE" as its log prints them
#   rprop-l1-obj.txt     the last log line of -a rprop with --rho1 0.5
#                        --rho2 1 after 3000 iterations (where it stalls),
#                        its timing cut
#   pme.wap, pme-viterbi.txt, pme-posterior.txt
#                        wapiti train --me -p patterns.txt (every line a
#                        sample, the patterns applied to it alone), and
#                        wapiti label -s / -p -s on test.txt, cut as above
# tests/pipeline/wapiti_model.sh checks that crfpipe, given model.wap,
# tags test.txt as these files say, and that the same patterns make the
# observations the model lists.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pos=$here/../../../samples/pos
WAPITI=${WAPITI:-wapiti}
mk() { # conllu sentences > word, xpos, upos columns
    awk -F'\t' -v max="$2" '
        /^#/ { next }
        NF == 0 { if (n) { print ""; n = 0; if (++sents >= max) exit } next }
        $1 ~ /[-.]/ { next }
        { print $2 "\t" $5 "\t" $4; n++ }' "$1"
}
mk "$pos/train.conllu" 60 >"$here/train.txt"
mk "$pos/test.conllu" 40 >"$here/test.txt"
"$WAPITI" train -p "$here/patterns.txt" "$here/train.txt" "$here/model.wap"
"$WAPITI" label -m "$here/model.wap" -s "$here/test.txt" "$here/viterbi.txt"
"$WAPITI" label -m "$here/model.wap" -p -s "$here/test.txt" "$here/posterior.txt"
"$WAPITI" train -T maxent -p "$here/patterns.txt" "$here/train.txt" "$here/maxent.wap"
"$WAPITI" label -m "$here/maxent.wap" -s "$here/test.txt" "$here/maxent-viterbi.txt"
"$WAPITI" label -m "$here/maxent.wap" -p -s "$here/test.txt" "$here/maxent-posterior.txt"
# Wapiti's data with its observations: made at test time by raw.awk too
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
LC_ALL=C awk -F'\t' -f "$here/raw.awk" "$here/train.txt" >"$tmp/train"
LC_ALL=C awk -F'\t' -f "$here/raw.awk" "$here/test.txt" >"$tmp/test"
cut_lines() { # keep "# N SCORE", blank lines, and each token's label and score
    awk -F'\t' '/^#/ || NF == 0 { print; next } { print $(NF - 1) "\t" $NF }'
}
"$WAPITI" train "$tmp/train" "$here/raw.wap"
"$WAPITI" train --me "$tmp/train" "$here/me.wap"
for m in raw me; do
    "$WAPITI" label -m "$here/$m.wap" -c -s "$tmp/test" | cut_lines >"$here/$m-viterbi.txt"
    "$WAPITI" label -m "$here/$m.wap" -c -p -s "$tmp/test" | cut_lines >"$here/$m-posterior.txt"
done
"$WAPITI" label -m "$here/raw.wap" -c -s -n 2 "$tmp/test" | cut_lines >"$here/raw-nbest.txt"
"$WAPITI" train --me -p "$here/patterns.txt" "$here/train.txt" "$here/pme.wap"
"$WAPITI" label -m "$here/pme.wap" -s "$here/test.txt" | cut_lines >"$here/pme-viterbi.txt"
"$WAPITI" label -m "$here/pme.wap" -p -s "$here/test.txt" | cut_lines >"$here/pme-posterior.txt"
# Wapiti's optimum: L-BFGS/OWL-QN to convergence, for wapiti_model.sh
"$WAPITI" train -t 1 -c -p "$here/patterns.txt" --rho1 0.5 --rho2 1 -i 3000 -e 0 -w 50 \
    "$here/train.txt" "$here/l1.wap" 2>&1 | grep 'obj=' | tail -n 1 >"$here/l1-obj.txt"
"$WAPITI" train -t 1 -p "$here/patterns.txt" --rho1 0 --rho2 1 -i 3000 -e 0 -w 50 \
    "$here/train.txt" "$tmp/l2.wap" 2>&1 | grep 'obj=' | tail -n 1 >"$here/l2-obj.txt"
# RPROP: Wapiti's trajectory, and where its l1 scheme ends
for a in rprop:rprop rprop-:rpropm; do
    "$WAPITI" train -t 1 -a "${a%%:*}" -p "$here/patterns.txt" --rho1 0 --rho2 1 -i 200 -e 0 \
        "$here/train.txt" "$tmp/r.wap" 2>&1 |
        sed -n 's/^ *\[ *\([0-9]*\)\] obj=\([0-9.]*\) .*/\1 \2/p' >"$here/${a#*:}-obj.txt"
done
"$WAPITI" train -t 1 -a rprop -p "$here/patterns.txt" --rho1 0.5 --rho2 1 -i 3000 -e 0 \
    "$here/train.txt" "$tmp/r.wap" 2>&1 | grep 'obj=' | tail -n 1 |
    sed 's/ *err=.*//' >"$here/rprop-l1-obj.txt"
