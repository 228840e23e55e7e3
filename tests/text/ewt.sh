#!/bin/sh
# Tokenization of the UD English EWT test text (../shared/data; skipped when
# absent) by icu_tokenizer with the English settings of the sample
# pipelines, scored against the treebank's gold words: F1 >= 97.
. "$top_srcdir/tests/pipeline/common.sh"
gold=$CRFP_SHARED_DATA/ud_english_ewt/en_ewt-ud-test.conllu
[ -f "$gold" ] || { echo "no $gold: skipped"; exit 77; }
ewtraw=$top_builddir/tests/text/ewtraw
# ewtraw, a test tool, keeps the gold data until it exits: no leak check
ewtraw() { ASAN_OPTIONS=detect_leaks=0 "$top_builddir/tests/text/ewtraw" "$@"; }
ewtraw text "$gold" >"$tmp/raw.txt" || fail "ewtraw text"
# the tokenizer stage of samples/pos/annotate.xml, on one sentence per line
sed -e 's|<stage plugin="text_reader"/>|<stage plugin="text_reader"><param name="split" value="line"/></stage>|' \
    -e '/<stage plugin="viterbi">/,/<\/stage>/d' \
    -e "s|\"../text/|\"$top_srcdir/samples/text/|" \
    "$top_srcdir/samples/pos/annotate.xml" >"$tmp/tok.xml"
grep -q 'split' "$tmp/tok.xml" && ! grep -q viterbi "$tmp/tok.xml" || fail "pipeline edit"
"$CRFPIPE" run "$tmp/tok.xml" -i "$tmp/raw.txt" -o "$tmp/run.xml" || fail "tokenizing"
ewtraw score "$gold" "$tmp/run.xml" >"$tmp/score" || fail "ewtraw score"
cat "$tmp/score"
f1=$(sed -n 's/^words .* F1 \([0-9.]*\)$/\1/p' "$tmp/score")
awk -v f="$f1" 'BEGIN { exit !(f >= 97) }' || fail "EWT token F1 $f1 below 97"
finish
