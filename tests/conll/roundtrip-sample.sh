# Round trips of files shipped in the tree (no ../shared needed): the EWT
# excerpt and a CoNLL-2003-style file with -DOCSTART- lines, directly and
# through the XML format, must come back byte for byte.
. "$top_srcdir/tests/conll/common.sh"

ewt=$top_srcdir/tests/data/ewt-sample.conllu
d03=$top_srcdir/tests/conll/docstart.conll

convert --from conllu --to conllu "$ewt" "$work/ewt.conllu"
same_bytes "$ewt" "$work/ewt.conllu" "conllu -> conllu"

# Documents cut every 7 sentences still concatenate to the input.
convert --to conllu --reader-param max-sentences=7 "$ewt" "$work/ewt7.conllu"
same_bytes "$ewt" "$work/ewt7.conllu" "conllu -> conllu, max-sentences=7"

convert --from conllu --to xml "$ewt" "$work/ewt.xml"
convert --from xml --to conllu "$work/ewt.xml" "$work/ewt2.conllu"
same_bytes "$ewt" "$work/ewt2.conllu" "conllu -> xml -> conllu"

# To columns: only the words are tokens (no ranges, no empty nodes).
convert --from conllu --to conll --columns form,upos "$ewt" "$work/ewt.conll"
words=$(grep -cE '^[0-9]+	' "$ewt")
lines=$(grep -c . "$work/ewt.conll")
[ "$words" = "$lines" ] || fail "conllu -> conll: $lines token lines, expected $words"
grep -q '^did AUX$' "$work/ewt.conll" || fail "conllu -> conll: word of a multiword token missing"
grep -q "^didn't " "$work/ewt.conll" && fail "conllu -> conll: multiword range written as a token"
convert --from conll --to conll --columns form,upos "$work/ewt.conll" "$work/ewt2.conll"
same_bytes "$work/ewt.conll" "$work/ewt2.conll" "conll -> conll"

# CoNLL-2003 style with -DOCSTART-, odd blank-line runs and non-ASCII words.
convert --from conll --to conll "$d03" "$work/d03.conll"
same_bytes "$d03" "$work/d03.conll" "docstart conll -> conll"
convert --from conll --to xml "$d03" -o "$work/d03.xml"
convert --from xml --to conll "$work/d03.xml" -o "$work/d03b.conll"
same_bytes "$d03" "$work/d03b.conll" "docstart conll -> xml -> conll"

# Layout irregularities: tabs, runs of spaces, trailing blanks, CRLF and no
# final newline.
printf 'a\tB  c \n\nd\te f\n\n\n' > "$work/odd.conll"
printf 'x y\r\nz w\r\n\r\nu v' > "$work/crlf.conll"
printf '\n\n1\ta\ta\tX\t_\t_\t0\troot\t_\t_' > "$work/nonl.conllu"
for f in odd.conll crlf.conll nonl.conllu; do
    convert --to "${f#*.}" "$work/$f" "$work/out-$f"
    same_bytes "$work/$f" "$work/out-$f" "$f round trip"
    convert --to xml "$work/$f" "$work/$f.xml"
    convert --from xml --to "${f#*.}" "$work/$f.xml" "$work/xml-$f"
    same_bytes "$work/$f" "$work/xml-$f" "$f round trip through XML"
done

# Appending a column: the writer takes any Token feature list.
convert --from conll --to conll --columns word,pos,chunk,ner "$d03" "$work/named.conll"
same_bytes "$d03" "$work/named.conll" "named columns"
convert --to conll --reader-param columns=word,pos,chunk,ner --writer-param columns=word,ner \
    "$d03" "$work/two.conll"
grep -q '^Zürich B-LOC$' "$work/two.conll" || fail "column choice: Zürich B-LOC missing"
exit 0
