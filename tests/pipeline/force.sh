#!/bin/sh
# Forced decoding (tag --force, Wapiti's --force): tokens whose force
# feature holds a label keep it, the others are decoded around them; a
# force the best labelling already satisfies changes nothing; forced
# tokens are certain in the posteriors; a label the model lacks is refused
# with the token; the run records what was forced from.
. "$top_srcdir/tests/pipeline/common.sh"
pos="$top_srcdir/samples/pos"
tpl="$top_srcdir/tests/pipeline/tiny.tpl"
awk 'NR > 3000 && /^$/ { print; exit } { print }' "$pos/train.conllu" >"$tmp/train.conllu"
# word, gold tag: the training data's own sentences (every label known)
awk -F'\t' '/^#/ || ($1 ~ /[-.]/) { next } NF == 0 { print; next } { print $2 "\t" $4 }' \
    "$tmp/train.conllu" | awk 'NR <= 600 || !/./ { print } NR > 600 && !/./ { exit }' >"$tmp/in.txt"
"$CRFPIPE" -q train --template "$tpl" --threads 1 --max-iter 4 --format conll \
    --columns form,label --model "$tmp/m" "$tmp/in.txt" || fail "train"
"$CRFPIPE" tag --model "$tmp/m" --threads 1 --columns form,label -o "$tmp/free.txt" "$tmp/in.txt" || fail "tag"
err=$(awk -F'\t' 'NF && $2 != $3 { n++ } END { print n + 0 }' "$tmp/free.txt")
[ "$err" -gt 0 ] || fail "the model makes no error on its data: nothing to force"

# 1. Forced on the gold column: every token keeps its gold label.
"$CRFPIPE" tag --model "$tmp/m" --threads 1 --force --columns form,label -o "$tmp/gold.txt" \
    "$tmp/in.txt" ||
    fail "tag --force"
awk -F'\t' 'NF && $2 != $3 { bad = 1 } END { exit bad }' "$tmp/gold.txt" ||
    fail "--force did not keep the gold labels"

# 2. A hint column (word, gold, hint): every 4th token forced.  Hints equal
# to the free prediction change nothing at all; hints set to the gold
# label are kept, and where the free prediction was wrong the labels
# around them may follow.
awk -F'\t' 'NF == 0 { print; next } { n++; print $1 "\t" $2 "\t" (n % 4 ? "_" : $3) }' \
    "$tmp/free.txt" >"$tmp/same.txt"
awk -F'\t' 'NF == 0 { print; next } { n++; print $1 "\t" $2 "\t" (n % 4 ? "_" : $2) }' \
    "$tmp/free.txt" >"$tmp/hint.txt"
for h in same hint; do
    "$CRFPIPE" tag --model "$tmp/m" --threads 1 --force --force-feature hint --columns form,gold,hint \
        --posteriors -o "$tmp/$h.out" "$tmp/$h.txt" || fail "tag --force-feature hint ($h)"
done
# columns: form gold hint prob predicted
awk -F'\t' 'NF == 0 { next } { n++; if ($3 != "_" && $NF != $3) bad = 1 } END { exit bad }' \
    "$tmp/hint.out" || fail "a hinted token lost its hint"
awk -F'\t' 'NF == 0 { next } $3 != "_" && $(NF - 1) != "1.000000" { bad = 1 } END { exit bad }' \
    "$tmp/hint.out" || fail "a forced token is not certain in the posteriors"
cut -f3 "$tmp/free.txt" >"$tmp/free.lab"
awk -F'\t' '{ print $NF }' "$tmp/same.out" | sed 's/^_$//' >"$tmp/same.lab"
awk -F'\t' 'NF == 0 { print ""; next } { print $NF }' "$tmp/same.out" | cmp -s - "$tmp/free.lab" ||
    fail "forcing labels the best labelling already has changed it"
# forcing gold labels where the model erred makes fewer errors, never more
e1=$(awk -F'\t' 'NF && $2 != $NF { n++ } END { print n + 0 }' "$tmp/hint.out")
[ "$e1" -lt "$err" ] || fail "forcing a quarter of the gold labels left $e1 errors of $err"

# 3. A label the model has not got is refused, naming the token.
awk -F'\t' 'NR == 5 { print $1 "\t" $2 "\tNOSUCH"; next } NF == 0 { print; next } { print $0 "\t_" }' \
    "$tmp/in.txt" >"$tmp/bad.txt"
expect_fail "sentence 1, token 5: 'NOSUCH' (feature hint) is not one of the model's labels" \
    "$CRFPIPE" tag --model "$tmp/m" --force --force-feature hint --columns form,gold,hint "$tmp/bad.txt"

# 4. XML records the force in the tagging run.
"$CRFPIPE" tag --model "$tmp/m" --force --force-feature hint --columns form,gold,hint --to xml \
    -o "$tmp/hint.xml" "$tmp/hint.txt" || fail "tag --force --to xml"
grep -q 'name="force-feature" value="hint"' "$tmp/hint.xml" || fail "the run does not record the force"

# 5. Flags past the options' table are a usage error (40 of them wrote
# past its end).
set --
for k in $(seq 40); do set -- "$@" --force; done
expect_fail "too many options" "$CRFPIPE" tag --model "$tmp/m" "$@" "$tmp/in.txt"
finish
