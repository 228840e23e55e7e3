#!/bin/sh
# crfpipe features: a template's observations as CRFsuite's and Wapiti's
# data.  Trained on what it writes, crfpipe makes the template's own model:
# --to crfsuite (read with --features attributes), a template of unigram
# patterns and a plain B: the same optimum, the same unigram weights (the
# observations keep their names, odd characters too); --to wapiti
# (bigram=wapiti), a template with bigram and both-kind patterns: the same
# optimum, and Wapiti's own patterns keep their observations' names.
# CRFsuite data read by the attributes plugin comes back as it was, values
# and sequence weights included; --model writes what the model's own
# template extracts; CRFsuite and Wapiti themselves, when installed, train
# on the output to crfpipe's optimum.  What a format cannot hold is an
# error naming the token (a blank in a Wapiti observation, a value in
# Wapiti's data) or a warning counting it (bigram observations in
# CRFsuite's data, weights in Wapiti's), and a failed run leaves no output.
. "$top_srcdir/tests/pipeline/common.sh"
tpl=$top_srcdir/tests/pipeline/tiny.tpl

# 150 EWT sentences: form, UPOS
awk -F'\t' '/^#/ { next } NF == 0 { if (n) print ""; n = 0; if (++s >= 150) exit; next }
    $1 ~ /[-.]/ { next } { print $2 "\t" $4; n++ }' "$top_srcdir/samples/pos/train.conllu" \
    >"$tmp/p.tsv"
final_f() { sed -n 's/.*F = \([0-9.e+-]*\).*/\1/p' "$1" | tail -n 1; }
same_f() { # what a b
    awk -v a="$2" -v b="$3" 'BEGIN { d = a - b; exit !(b > 0 && d * d < (1e-9 * b) ^ 2) }' ||
        fail "$1: optimum $2, the template's $3"
}
unigrams() { # model: U|OBS|LABEL TAB WEIGHT, by key
    "$CRFPIPE" model dump "$1" | awk -F'\t' '$1 == "U" && NF == 4 { print "U|" $2 "|" $3 "\t" $4 }' |
        LC_ALL=C sort
}

# CRFsuite's data: the same model
"$CRFPIPE" features --template "$tpl" --columns form,label -o "$tmp/f.crfsuite" "$tmp/p.tsv" \
    2>"$tmp/log" || { cat "$tmp/log"; fail "features --to crfsuite"; }
grep -q "not written" "$tmp/log" && fail "a template with a plain B lost bigram observations"
[ "$(grep -c . "$tmp/f.crfsuite")" = "$(grep -c . "$tmp/p.tsv")" ] ||
    fail "not a line per token"
head -n 1 "$tmp/f.crfsuite" | grep -q '^PROPN	U00\\:_B-1	U01\\:Al	' ||
    fail "the first token's line: $(head -n 1 "$tmp/f.crfsuite")"
"$CRFPIPE" train --template "$tpl" --columns form,label --epsilon 1e-10 --threads 1 \
    --model "$tmp/t.model" "$tmp/p.tsv" 2>"$tmp/t.log" || { cat "$tmp/t.log"; fail "train, template"; }
"$CRFPIPE" train --features attributes --epsilon 1e-10 --threads 1 --model "$tmp/a.model" \
    "$tmp/f.crfsuite" 2>"$tmp/a.log" || { cat "$tmp/a.log"; fail "train on the CRFsuite data"; }
ft=$(final_f "$tmp/t.log") fa=$(final_f "$tmp/a.log")
echo "CRFsuite's data: optimum $fa, the template's $ft"
same_f "--to crfsuite" "$fa" "$ft"
unigrams "$tmp/t.model" >"$tmp/t.u"
unigrams "$tmp/a.model" >"$tmp/a.u"
cut -f1 "$tmp/t.u" >"$tmp/t.k"
cut -f1 "$tmp/a.u" | cmp -s - "$tmp/t.k" || fail "the attribute model's unigram weights are not the template's"
paste "$tmp/t.u" "$tmp/a.u" | awk -F'\t' '{ d = $2 - $4; if (d < 0) d = -d; if (d > m) m = d }
    END { printf "%d unigram weights, the largest difference %.2g\n", NR, m; exit !(NR > 1000 && m < 1e-6) }' ||
    fail "the unigram weights differ"

# words CRFsuite's data must escape or the attributes plugin spells
# otherwise (':', '\', a blank, a lone '_') reach the same optimum
awk -F'\t' 'BEGIN { OFS = "\t" } NF { if ($1 == "the") $1 = "t:h\\e"; else if ($1 == "of") $1 = "o f"
    else if ($1 == ",") $1 = "\\:"; else if ($1 == "and") $1 = "_" } { print }' "$tmp/p.tsv" >"$tmp/odd.tsv"
grep -q 'o f' "$tmp/odd.tsv" && grep -q 't:h\\e' "$tmp/odd.tsv" || fail "the odd words were not made"
"$CRFPIPE" -q features --template "$tpl" --columns form,label --reader-param separator=tab \
    -o "$tmp/odd.crfsuite" "$tmp/odd.tsv" || fail "features of odd words"
"$CRFPIPE" train --template "$tpl" --columns form,label --reader-param separator=tab \
    --epsilon 1e-10 --threads 1 --model "$tmp/o1.model" "$tmp/odd.tsv" 2>"$tmp/o1.log" ||
    fail "train on odd words"
"$CRFPIPE" train --features attributes --epsilon 1e-10 --threads 1 --model "$tmp/o2.model" \
    "$tmp/odd.crfsuite" 2>"$tmp/o2.log" || fail "train on their CRFsuite data"
same_f "odd words through CRFsuite's data" "$(final_f "$tmp/o2.log")" "$(final_f "$tmp/o1.log")"
unigrams "$tmp/o1.model" | cut -f1 >"$tmp/o1.k"
unigrams "$tmp/o2.model" | cut -f1 | cmp -s - "$tmp/o1.k" ||
    fail "odd words: the observations' names changed through CRFsuite's data"

# labels with a colon or a backslash are escaped too, and read back whole
printf 'a\tB:X\nb\tC\\d\nc\tE\n\n' >"$tmp/lab.tsv"
"$CRFPIPE" -q features --template "$tpl" --columns form,label --reader-param separator=tab \
    -o "$tmp/lab.crfsuite" "$tmp/lab.tsv" || fail "features of labels with a colon"
"$CRFPIPE" convert --to conll --columns attrs,label "$tmp/lab.crfsuite" 2>"$tmp/log" |
    awk 'NF { print $NF }' | tr '\n' '|' >"$tmp/labs"
[ "$(cat "$tmp/labs")" = 'B:X|C\d|E|' ] || fail "labels changed through CRFsuite's data: $(cat "$tmp/labs")"
grep -q "is read as" "$tmp/log" && fail "an escaped label was cut at its colon"

# CRFsuite itself (when installed; not in CI) trains on it to the optimum
# crfpipe reaches from the template in CRFsuite's model family
if command -v crfsuite >/dev/null 2>&1; then
    loss=$(crfsuite learn -m "$tmp/cs.model" -p c2=1 -p max_iterations=1000 -p delta=1e-9 \
        "$tmp/f.crfsuite" | sed -n 's/^Loss: *//p' | tail -n 1)
    "$CRFPIPE" train --template "$tpl" --columns form,label --rho2 2 --all-states false \
        --all-transitions false --epsilon 1e-10 --threads 1 --model "$tmp/cs2.model" \
        "$tmp/p.tsv" 2>"$tmp/cs2.log" || fail "train in CRFsuite's model family"
    echo "crfsuite learn on the output: $loss; crfpipe from the template: $(final_f "$tmp/cs2.log")"
    awk -v a="$loss" -v b="$(final_f "$tmp/cs2.log")" 'BEGIN { d = a - b; exit !(b > 0 && d * d < (1e-6 * b) ^ 2) }' ||
        fail "CRFsuite's optimum on the output is not crfpipe's"
else
    echo "crfsuite not installed: CRFsuite does not train on the output here"
fi

# Wapiti's data keeps the bigram observations
printf 'U01:%%x[0,form]\nU02:%%m[0,form,".$"]\nB03:%%x[-1,form]\n*04:%%t[0,form,"^\\p{Lu}"]\nB\n' \
    >"$tmp/b.tpl"
"$CRFPIPE" features --template "$tmp/b.tpl" --columns form,label -o - "$tmp/p.tsv" \
    >"$tmp/lost.crfsuite" 2>"$tmp/log" || fail "features --to crfsuite, bigram patterns"
grep -q "6314 bigram observations not written" "$tmp/log" ||
    fail "no warning counting the 2 x 3157 bigram observations CRFsuite's data lost: $(cat "$tmp/log")"
"$CRFPIPE" -q features --to wapiti --template "$tmp/b.tpl" --columns form,label \
    -o "$tmp/f.wap" "$tmp/p.tsv" || fail "features --to wapiti"
head -n 1 "$tmp/f.wap" | grep -qx 'uU01:Al uU02:l bB03:_B-1 \*04:true bB PROPN' ||
    fail "the first token's Wapiti line: $(head -n 1 "$tmp/f.wap")"
"$CRFPIPE" train --template "$tmp/b.tpl" --columns form,label --epsilon 1e-10 --threads 1 \
    --model "$tmp/tb.model" "$tmp/p.tsv" 2>"$tmp/tb.log" || fail "train, bigram template"
"$CRFPIPE" train --format wapiti --features attributes --feature-param bigram=wapiti \
    --epsilon 1e-10 --threads 1 --model "$tmp/w.model" "$tmp/f.wap" 2>"$tmp/w.log" ||
    { cat "$tmp/w.log"; fail "train on the Wapiti data"; }
ft=$(final_f "$tmp/tb.log") fw=$(final_f "$tmp/w.log")
echo "Wapiti's data: optimum $fw, the template's $ft"
same_f "--to wapiti" "$fw" "$ft"
# Wapiti itself (when installed; not in CI): its optimum on the output is
# crfpipe's from the template in Wapiti's model family, to its 2 decimals
if command -v wapiti >/dev/null 2>&1; then
    wf=$(wapiti train -t 1 --rho1 0 --rho2 1 -i 2000 -e 0 -w 50 "$tmp/f.wap" "$tmp/fw.wap" 2>&1 |
        sed -n 's/.*obj=\([0-9.]*\).*/\1/p' | tail -n 1)
    "$CRFPIPE" train --template "$tmp/b.tpl" --columns form,label --rho2 1 --start-weights false \
        --epsilon 1e-10 --threads 1 --model "$tmp/wf.model" "$tmp/p.tsv" 2>"$tmp/wf.log" ||
        fail "train in Wapiti's model family"
    echo "wapiti train on the output: $wf; crfpipe from the template: $(final_f "$tmp/wf.log")"
    awk -v a="$wf" -v b="$(final_f "$tmp/wf.log")" 'BEGIN { d = a - b; exit !(d * d <= 0.005 ^ 2) }' ||
        fail "Wapiti's optimum on the output is not crfpipe's"
else
    echo "wapiti not installed: Wapiti does not train on the output here"
fi

# Wapiti's own patterns (#!wapiti) name their observations after their kind:
# written as they are, they come back under the same names, every one of
# them; Wapiti itself (when installed) trains on them to the optimum it
# reaches with the patterns (tests/data/wapiti-model/l2-obj.txt)
wd=$top_srcdir/tests/data/wapiti-model
{ echo '#!wapiti'; cat "$wd/patterns.txt"; } >"$tmp/wp.tpl"
"$CRFPIPE" -q features --template "$tmp/wp.tpl" --to wapiti -o "$tmp/wp.wap" "$wd/train.txt" ||
    fail "features --to wapiti, Wapiti's patterns"
head -n 1 "$tmp/wp.wap" | grep -q '^u00:_x-2 u01:_x-1 u02:Al ' ||
    fail "Wapiti's observations were renamed: $(head -c 80 "$tmp/wp.wap")"
"$CRFPIPE" train --template "$tmp/wp.tpl" --rho2 1 --start-weights false --epsilon 1e-10 \
    --threads 1 --model "$tmp/wp1.model" "$wd/train.txt" 2>"$tmp/wp1.log" || fail "train, patterns"
"$CRFPIPE" train --format wapiti --features attributes --feature-param bigram=wapiti --rho2 1 \
    --start-weights false --epsilon 1e-10 --threads 1 --model "$tmp/wp2.model" "$tmp/wp.wap" \
    2>"$tmp/wp2.log" || { cat "$tmp/wp2.log"; fail "train on Wapiti's data of the patterns"; }
same_f "Wapiti's patterns through Wapiti's data" "$(final_f "$tmp/wp2.log")" "$(final_f "$tmp/wp1.log")"
keys() { "$CRFPIPE" model dump "$1" | awk -F'\t' '($1 == "U" && NF == 4) || ($1 == "B" && NF == 5) {
    k = $1; for (i = 2; i < NF; i++) k = k "|" $i; print k }' | LC_ALL=C sort; }
keys "$tmp/wp1.model" >"$tmp/wp1.k"
keys "$tmp/wp2.model" | cmp -s - "$tmp/wp1.k" || fail "Wapiti's observations changed names"
echo "Wapiti's patterns: $(wc -l <"$tmp/wp1.k") weights under the same names, optimum $(final_f "$tmp/wp2.log")"
if command -v wapiti >/dev/null 2>&1; then
    wo=$(wapiti train -t 1 --rho1 0 --rho2 1 -i 2000 -e 0 -w 50 "$tmp/wp.wap" "$tmp/wpw.wap" 2>&1 |
        grep 'obj=' | tail -n 1 | sed 's/.*\(obj=[0-9.]* *act=[0-9]*\).*/\1/')
    want=$(sed 's/.*\(obj=[0-9.]* *act=[0-9]*\).*/\1/' "$wd/l2-obj.txt")
    echo "wapiti train on it: $wo; with the patterns: $want"
    [ "$wo" = "$want" ] || fail "Wapiti on the exported data: $wo, with its patterns $want"
fi

# CRFsuite data through the attributes plugin comes back as it was (a
# value of 1 is written as no value)
d=$top_srcdir/tests/data/crfsuite-valued
"$CRFPIPE" -q features --features attributes -o "$tmp/rt.crfsuite" "$d/train.crfsuite" ||
    fail "features of CRFsuite data"
sed 's/:1\(	\|$\)/\1/g' "$d/train.crfsuite" | cmp -s - "$tmp/rt.crfsuite" ||
    fail "CRFsuite's valued data did not come back as it was"
# sequence weights (CRFsuite's @weight) go with their sequences: the
# data weighed by CRFsuite comes back to CRFsuite's weighted optimum;
# Wapiti's data has no weights, and a warning counts them
dw=$top_srcdir/tests/data/crfsuite-weighted
"$CRFPIPE" -q features --features attributes -o "$tmp/w.crfsuite" "$dw/train.crfsuite" ||
    fail "features of weighted CRFsuite data"
[ "$(grep -c '^@weight:' "$tmp/w.crfsuite")" = 56 ] ||
    fail "not the 56 weights of the sequences (one declaration of the file weighs none)"
"$CRFPIPE" train --features attributes --rho2 2 --all-states false --all-transitions false \
    --epsilon 1e-10 --model "$tmp/w.model" "$tmp/w.crfsuite" 2>"$tmp/w.log" ||
    fail "train on the weighted data written back"
same_f "weighted data written back" "$(final_f "$tmp/w.log")" "$(sed -n 's/^Loss: *//p' "$dw/loss.txt")"
"$CRFPIPE" features --features attributes --to wapiti -o - "$dw/train.crfsuite" 2>"$tmp/log" \
    >/dev/null || fail "weighted data to Wapiti's"
grep -q "52 sentences weighed other than 1" "$tmp/log" || fail "no warning counting the weights Wapiti's data lost"

# --model: the features of the model's template, its label
"$CRFPIPE" -q features --template "$tpl" --columns form,label -o "$tmp/m1" "$tmp/p.tsv" ||
    fail "features, template"
"$CRFPIPE" -q features --model "$tmp/t.model" --columns form,label -o "$tmp/m2" "$tmp/p.tsv" ||
    fail "features --model"
cmp -s "$tmp/m1" "$tmp/m2" || fail "--model wrote other observations than its template"
# a model whose template names its columns, given columns named by position
# only (no --columns): they take the model's names by position, as Wapiti
# and CRF++ read columns (features, and tag alike)
"$CRFPIPE" -q features --model "$tmp/t.model" -o "$tmp/m3" "$tmp/p.tsv" ||
    fail "features --model on columns named by position"
cmp -s "$tmp/m2" "$tmp/m3" || fail "columns named by position gave other observations"
"$CRFPIPE" tag --model "$tmp/t.model" --columns form,label -o "$tmp/tag1" "$tmp/p.tsv" ||
    fail "tag, columns named"
"$CRFPIPE" --verbose tag --model "$tmp/t.model" -o "$tmp/tag2" "$tmp/p.tsv" 2>"$tmp/log" ||
    fail "tag, columns named by position"
cmp -s "$tmp/tag1" "$tmp/tag2" || fail "tag: columns named by position tagged otherwise"
grep -q "names its columns by position (word,label): read as the model's form,label" "$tmp/log" ||
    { cat "$tmp/log" >&2; fail "tag does not say it read the columns by position"; }
# columns the user named otherwise: the error says which the model has
expect_fail "unknown column name 'form' (the model was trained on the columns form,label" \
    "$CRFPIPE" features --model "$tmp/t.model" --columns w,label "$tmp/p.tsv"
expect_fail "unknown column name 'form' (the model was trained on the columns form,label, the input's are w,label: name them with --columns" \
    "$CRFPIPE" tag --model "$tmp/t.model" --columns w,label "$tmp/p.tsv"

# what a format cannot hold
printf 'a b\tX\n\n' >"$tmp/sp.tsv"
rm -f "$tmp/x"
expect_fail "sentence 1, token 1: observation 'U01:a b' is empty or holds a blank" \
    "$CRFPIPE" features --to wapiti --template "$tmp/b.tpl" --columns form,label \
    --reader-param separator=tab -o "$tmp/x" "$tmp/sp.tsv"
[ -e "$tmp/x" ] && fail "a failed run left its output"
expect_fail "observation 'suf3=Al' has the value 0.5: Wapiti's data has no values" \
    "$CRFPIPE" features --to wapiti --features attributes "$d/train.crfsuite"
expect_fail "--model brings its own features" \
    "$CRFPIPE" features --model "$tmp/t.model" --template "$tpl" "$tmp/p.tsv"
expect_fail "--to must be crfsuite or wapiti" "$CRFPIPE" features --to xml --template "$tpl" "$tmp/p.tsv"
expect_fail "--template FILE is required" "$CRFPIPE" features "$tmp/p.tsv"
finish
