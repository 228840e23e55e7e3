# Issue 15, "Column formats on real treebanks", each point on a small file
# written for the project.
. "$top_srcdir/tests/formats/common.sh"
T='	'
# A tiny UPOS corpus: two sentences, the second with a MISC value holding
# spaces (as real treebanks have, e.g. XML=<hi rend="bold large">).
cat > "$tmp/tiny.conllu" <<EOC
# sent_id = s1
# text = Dogs bark.
1${T}Dogs${T}dog${T}NOUN${T}NNS${T}_${T}2${T}nsubj${T}_${T}_
2${T}bark${T}bark${T}VERB${T}VBP${T}_${T}0${T}root${T}_${T}SpaceAfter=No
3${T}.${T}.${T}PUNCT${T}.${T}_${T}2${T}punct${T}_${T}_

# sent_id = s2
# text = Cats sleep.
1${T}Cats${T}cat${T}NOUN${T}NNS${T}_${T}2${T}nsubj${T}_${T}XML=<hi rend="bold large">
2${T}sleep${T}sleep${T}VERB${T}VBP${T}_${T}0${T}root${T}_${T}SpaceAfter=No
3${T}.${T}.${T}PUNCT${T}.${T}_${T}2${T}punct${T}_${T}_

EOC
printf 'U00:%%x[0,form]\nB\n' > "$tmp/t.tpl"
train "$tmp/m" "$tmp/t.tpl" --label upos "$tmp/tiny.conllu"

# 1. The prediction is in the output: by default in UPOS with the gold kept
#    in MISC; in MISC with --prediction-to misc; as an 11th column with
#    --prediction-to extra; --map upos:predicted is a writer option.
"$CRFPIPE" --quiet tag --model "$tmp/m" "$tmp/tiny.conllu" > "$tmp/o1" || fail "tag"
cmp -s "$tmp/o1" "$tmp/tiny.conllu" && fail "tag wrote the input back unchanged"
grep -q "^1${T}Dogs${T}dog${T}NOUN${T}NNS${T}_${T}2${T}nsubj${T}_${T}GoldUPOS=NOUN\$" "$tmp/o1" \
    || fail "prediction not in UPOS with gold in MISC"
grep -q "^2${T}bark${T}.*${T}SpaceAfter=No|GoldUPOS=VERB\$" "$tmp/o1" \
    || fail "GoldUPOS not appended to an existing MISC"
"$CRFPIPE" --quiet eval "$tmp/o1" > "$tmp/r1" || fail "eval of the tagged file"
grep -q 'token accuracy:    100.00%  (6/6)' "$tmp/r1" || { fail "eval of tagged file"; cat "$tmp/r1" >&2; }
"$CRFPIPE" --quiet tag --model "$tmp/m" --prediction-to misc "$tmp/tiny.conllu" > "$tmp/o2" \
    || fail "tag --prediction-to misc"
grep -q "^3${T}\\.${T}\\.${T}PUNCT${T}\\.${T}_${T}2${T}punct${T}_${T}PredictedUPOS=PUNCT\$" \
    "$tmp/o2" || fail "prediction not in MISC"
"$CRFPIPE" --quiet eval "$tmp/o2" > "$tmp/r2" && cmp -s "$tmp/r1" "$tmp/r2" \
    || fail "eval of the MISC-mode output differs"
"$CRFPIPE" --quiet tag --model "$tmp/m" --prediction-to extra "$tmp/tiny.conllu" > "$tmp/o3" \
    || fail "tag --prediction-to extra"
[ "$(awk -F"$T" 'NF==11 && $11==$4' "$tmp/o3" | wc -l)" = 6 ] || fail "no 11th column"
"$CRFPIPE" --quiet tag --model "$tmp/m" --map upos:predicted --prediction-to none \
    "$tmp/tiny.conllu" > "$tmp/o4" || fail "tag --map upos:predicted"
grep -q GoldUPOS "$tmp/o4" && fail "--prediction-to none still wrote GoldUPOS"
# A file without any prediction is not scored 0.00 %.
expect_fail "no predicted labels in $tmp/tiny.conllu" "$CRFPIPE" eval "$tmp/tiny.conllu"
printf 'Dogs NOUN\nbark VERB\n' > "$tmp/two.conll"
expect_fail "no predicted labels in $tmp/two.conll" "$CRFPIPE" eval "$tmp/two.conll"
# (the help shows the writer's own declaration of the parameter)
"$CRFPIPE" tag --help | tr -s ' \n' ' ' |
    grep -q -- '--prediction-to VALUE where the prediction goes: column .* misc .* extra .* none' \
    || fail "tag --help does not describe --prediction-to"

# 2. A value the column writer cannot represent: escaped, with one warning
#    naming the feature, before anything is written; or the column left out;
#    or an error with nothing written.
"$CRFPIPE" tag --model "$tmp/m" --to conll "$tmp/tiny.conllu" > "$tmp/c1" 2> "$tmp/e1" \
    || fail "tag --to conll died on a MISC value with spaces"
[ "$(grep -c 'warning' "$tmp/e1")" = 1 ] || { fail "expected one warning"; cat "$tmp/e1" >&2; }
grep -q "sentence 2 (sent_id s2), word 1: feature 'misc'" "$tmp/e1" \
    || { fail "warning does not name the feature and sentence"; cat "$tmp/e1" >&2; }
grep -q '^1 Cats cat NOUN NNS _ 2 nsubj _ XML=<hi\\srend="bold\\slarge"> NOUN$' "$tmp/c1" \
    || { fail "MISC not escaped"; cat "$tmp/c1" >&2; }
[ "$(grep -c . "$tmp/c1")" = 6 ] || fail "not every token written"
[ "$(awk '{print NF}' "$tmp/c1" | sort -u | grep -v '^0$')" = 11 ] || fail "escaped: not 11 columns"
"$CRFPIPE" tag --model "$tmp/m" --to conll --unrepresentable drop "$tmp/tiny.conllu" \
    > "$tmp/c2" 2> "$tmp/e2" || fail "drop"
grep -q "column 'misc' left out" "$tmp/e2" || fail "drop: no warning"
[ "$(awk '{print NF}' "$tmp/c2" | sort -u | grep -v '^0$')" = 10 ] || fail "drop: not 10 columns"
expect_fail "feature 'misc' = 'XML=<hi rend=\"bold large\">' holds a space" \
    "$CRFPIPE" tag --model "$tmp/m" --to conll --writer-param unrepresentable=error \
    "$tmp/tiny.conllu"
[ -s "$tmp/stdout" ] && fail "unrepresentable=error wrote something before failing"
# CoNLL-U: a tab or a space inside UPOS (from a feature) is escaped too.
"$CRFPIPE" --quiet convert --from conllu --to xml "$tmp/tiny.conllu" "$tmp/tiny.xml" || fail convert
sed 's/name="upos">NOUN</name="upos">NO UN</' "$tmp/tiny.xml" > "$tmp/sp.xml"
"$CRFPIPE" convert --from xml --to conllu "$tmp/sp.xml" "$tmp/sp.conllu" 2> "$tmp/e3" \
    || fail "conllu writer died on a space in UPOS"
grep -q "NO\\\\sUN" "$tmp/sp.conllu" || fail "space in UPOS not escaped"

# 3. Format detected from the content when the name says nothing, and said
#    in errors.
cp "$tmp/o1" "$tmp/tagged.out"
"$CRFPIPE" --quiet eval "$tmp/tagged.out" > "$tmp/r5" || fail "eval of CoNLL-U named .out"
cmp -s "$tmp/r1" "$tmp/r5" || fail "CoNLL-U named .out scored differently"
{ cat "$tmp/tiny.conllu"; printf '1%sx%sx\n\n' "$T" "$T"; } > "$tmp/broken.out"
expect_fail "broken.out:.*read as CoNLL-U, detected from its content; use --format to override" \
    "$CRFPIPE" eval "$tmp/broken.out"
cp "$tmp/tiny.xml" "$tmp/corpus.dat"
"$CRFPIPE" --quiet tag --model "$tmp/m" "$tmp/corpus.dat" > "$tmp/x.out" || fail "tag XML named .dat"
head -c 200 "$tmp/x.out" | grep -q '<corpus' || fail "XML named .dat not written as XML"
# A two-column tagged corpus ("word TAG") whose first sentence has more than
# 20 tokens looks like CMUdict entries line by line: the blank line after it
# says it is a column file.
awk 'BEGIN { for (s = 0; s < 3; s++) { for (i = 0; i < 25; i++) printf "w%c NOUN\n", 97 + i; print "" } }' \
    > "$tmp/long.txt"
"$CRFPIPE" --quiet convert --to conll "$tmp/long.txt" "$tmp/long.out" || fail "long 2-column sentence"
cmp -s "$tmp/long.txt" "$tmp/long.out" || fail "long 2-column sentence not read as CoNLL"
"$CRFPIPE" --quiet convert --to xml "$tmp/long.txt" "$tmp/long.xml" || fail "long 2-column sentence (xml)"
grep -q 'lexicon' "$tmp/long.xml" && fail "long 2-column sentence read as a lexicon"

# 4. -DOCSTART- inside a sentence (no blank line before it) ends the
#    sentence and starts a document; the file round-trips byte for byte.
printf 'Alice NNP B-PER\nleft VBD O\n-DOCSTART- -X- O\nBob NNP B-PER\nstayed VBD O\n\n' \
    > "$tmp/ds.conll"
"$CRFPIPE" --quiet convert --from conll --to conll "$tmp/ds.conll" "$tmp/ds2.conll" || fail "docstart convert"
cmp -s "$tmp/ds.conll" "$tmp/ds2.conll" || fail "-DOCSTART- inside a sentence: not byte-identical"
printf 'U00:%%x[0,0]\nB\n' > "$tmp/w.tpl"
train "$tmp/ds.model" "$tmp/w.tpl" "$tmp/ds.conll"
"$CRFPIPE" --quiet eval --model "$tmp/ds.model" "$tmp/ds.conll" > "$tmp/r6" || fail "docstart eval"
grep -q '^tokens 4, sentences 2$' "$tmp/r6" || { fail "-DOCSTART- inside a sentence: wrong split"; cat "$tmp/r6" >&2; }
finish
