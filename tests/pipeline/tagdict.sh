#!/bin/sh
# The tag dictionary stages: tagdict_build's jackknifed classes, its file
# and the lookups of later documents (a hand-made case, then the shipped EWT
# excerpt against an independent awk), tagdict on new text, a tagger before
# the features stage of a training pipeline, external lexicons for the
# POS and entity taggers (the samples' *-lex.xml pipelines), bad
# dictionaries and parameters.
. "$top_srcdir/tests/pipeline/common.sh"
P=$CRFPIPE
pos="$top_srcdir/samples/pos"
build() {   # build FILE DICT COLUMNS-IN COLUMNS-OUT [EXTRA-PARAMS]
    cat >"$1" <<X
<?xml version="1.0"?><pipeline xmlns="urn:crfpipe:pipeline:1">
<stage plugin="conll_reader"><param name="columns" value="$3"/><param name="batch-bytes" value="0"/></stage>
<stage plugin="tagdict_build"><param name="dict" value="$2"/><param name="key" value="word"/>
<param name="label" value="tag"/>${5:-}</stage>
<stage plugin="conll_writer"><param name="columns" value="$4"/></stage></pipeline>
X
}
lookup() {   # lookup FILE DICT [EXTRA-PARAMS]
    cat >"$1" <<X
<?xml version="1.0"?><pipeline xmlns="urn:crfpipe:pipeline:1">
<stage plugin="conll_reader"><param name="columns" value="word"/></stage>
<stage plugin="tagdict"><param name="dict" value="$2"/>${3:-}</stage>
<stage plugin="conll_writer"/></pipeline>
X
}

# 1. by hand: two runs of two sentences; each run gets the other's classes
# (documents after the end of the input, a trainer's dev set, are looked
# up: part 3)
cat >"$tmp/a.conll" <<'X'
The DET
run NOUN

the DET
run VERB

They PRON
run VERB

Run VERB
the DET
X
cat >"$tmp/a.want" <<'X'
The UNK DET UNK
run VERB VERB VERB

the DET DET DET
run VERB VERB VERB

They UNK UNK UNK
run NOUN|VERB NOUN|VERB NOUN

Run UNK NOUN|VERB UNK
the DET DET DET
X
build "$tmp/a.xml" "$tmp/a.dict" word,tag word,amb,amblc,ambtop '<param name="folds" value="2"/>'
$P run "$tmp/a.xml" -i "$tmp/a.conll" -o "$tmp/a.out" 2>"$tmp/a.err" || { fail "tagdict_build"; cat "$tmp/a.err" >&2; }
cmp -s "$tmp/a.out" "$tmp/a.want" || { fail "jackknifed classes"; diff "$tmp/a.want" "$tmp/a.out" >&2 || true; }
grep -q "5 words, 4 tags" "$tmp/a.err" || fail "tagdict_build's summary line"
printf '#crfpipe-tagdict 1\nThe\tDET\t1\nrun\tNOUN\t1\tVERB\t2\nthe\tDET\t2\nThey\tPRON\t1\nRun\tVERB\t1\n' |
    cmp -s - "$tmp/a.dict" || { fail "the dictionary file"; cat "$tmp/a.dict" >&2; }
# new text; the features become columns (a writer without a column list shows them)
printf 'RUN\nthe\nzebra\nrun\n' >"$tmp/b.conll"
lookup "$tmp/b.xml" "$tmp/a.dict" '<param name="output" value="d"/><param name="unknown" value="?"/>'
$P run "$tmp/b.xml" -i "$tmp/b.conll" -o "$tmp/b.out" || fail "tagdict lookup"
printf 'RUN ? NOUN|VERB ?\nthe DET DET DET\nzebra ? ? ?\nrun NOUN|VERB NOUN|VERB VERB\n' |
    cmp -s - "$tmp/b.out" || { fail "tagdict lookup"; cat "$tmp/b.out" >&2; }

# 2. the shipped EWT excerpt (1,500 sentences), 10 runs, against awk: the
# classes sorted, ties of the commonest tag to the first seen (lowercased
# classes compared on ASCII words only: awk lowercases ASCII)
awk -F '\t' '/^#/ { next } NF == 0 { if (n) print ""; n = 0; next }
     $1 ~ /^[0-9]+$/ { print $2, $4; n++ } END { if (n) print "" }' "$pos/train.conllu" >"$tmp/e.conll"
build "$tmp/e.xml" "$tmp/e.dict" word,tag word,tag,amb,amblc,ambtop
$P run "$tmp/e.xml" -i "$tmp/e.conll" -o "$tmp/e.out" 2>/dev/null || fail "tagdict_build on EWT"
awk -v K=10 'function cls(k, list,   a, n, i, j, t, s) {   # sorted tags of key k
         n = split(list, a, SUBSEP)
         for (i = 3; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 2 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
         s = ""; for (i = 2; i <= n; i++) s = s (i > 2 ? "|" : "") a[i]
         return s
     }
     NF == 0 { s++; next }
     { n++; w[n] = $1; t[n] = $2; sent[n] = s }
     END {
         ns = s
         for (i = 1; i <= n; i++) run[i] = int(sent[i] * K / ns)
         for (k = 0; k < K; k++) {
             split("", c); split("", tags); split("", lc); split("", ltags)
             for (i = 1; i <= n; i++) if (run[i] != k) {
                 if (!((w[i], t[i]) in c)) tags[w[i]] = tags[w[i]] SUBSEP t[i]
                 c[w[i], t[i]]++
                 l = tolower(w[i]); if (!((l, t[i]) in lcnt)) ltags[l] = ltags[l] SUBSEP t[i]
                 lcnt[l, t[i]]++
             }
             for (i = 1; i <= n; i++) if (run[i] == k) {
                 a = "UNK"; top = "UNK"; lo = "UNK"
                 if (w[i] in tags) {
                     a = cls(w[i], tags[w[i]]); m = split(tags[w[i]], tt, SUBSEP); top = tt[2]
                     for (j = 3; j <= m; j++) if (c[w[i], tt[j]] > c[w[i], top]) top = tt[j]
                 }
                 l = tolower(w[i]); if (l in ltags) lo = cls(l, ltags[l])
                 out[i] = w[i] " " t[i] " " a " " (w[i] ~ /^[ -~]*$/ ? lo : "-") " " top
             }
             split("", lcnt)
         }
         for (i = 1; i <= n; i++) { print out[i]; if (i == n || sent[i + 1] != sent[i]) print "" }
     }' "$tmp/e.conll" >"$tmp/e.want"
awk 'NF { if ($1 !~ /^[ -~]*$/) $4 = "-" } { print }' "$tmp/e.out" | cmp -s - "$tmp/e.want" ||
    { fail "tagdict_build on the EWT excerpt differs from awk"
      awk 'NF { if ($1 !~ /^[ -~]*$/) $4 = "-" } { print }' "$tmp/e.out" | diff "$tmp/e.want" - | head >&2 || true; }
test "$(awk 'NF && $3 == "UNK"' "$tmp/e.want" | wc -l)" -gt 1000 || fail "too few unknown words in the jackknife"
test "$(grep -c '|' "$tmp/e.want")" -gt 1000 || fail "too few ambiguous words"

# 3. a training pipeline with a tagger before its features stage: the
# dictionary tagger beats the same template without the dictionary on the
# excerpt's test part (and the dev set went through the lookup: a missing
# feature there would be an error of the template)
cp "$pos/train-td.xml" "$pos/pos-td.tpl" "$pos/pos.tpl" "$pos/dev.conllu" "$pos/eval-td.xml" "$tmp/"
(cd "$tmp" && $P -q run train-td.xml -i "$pos/train.conllu") || fail "train-td.xml"
test -s "$tmp/pos.tagdict" && test -s "$tmp/pos-td.model" || fail "train-td.xml wrote no dictionary or model"
$P train -q --template "$pos/pos.tpl" --label upos --rho1 0.05 --dev "$pos/dev.conllu" \
    --model "$tmp/plain.model" "$pos/train.conllu" || fail "the plain tagger"
td=$($P run "$tmp/eval-td.xml" -i "$pos/test.conllu" | sed -n 's/^accuracy: *\([0-9.]*\)%.*/\1/p')
plain=$($P eval --model "$tmp/plain.model" "$pos/test.conllu" | sed -n 's/.*token accuracy: *\([0-9.]*\)%.*/\1/p')
awk -v a="$td" -v b="$plain" 'BEGIN { exit !(a > b + 0.3) }' ||
    fail "the dictionary tagger ($td %) does not beat the plain one ($plain %)"

# 3b. an external lexicon (pos-lex.tpl): lexicon.xml builds one from a
# tagged corpus in CoNLL-2000's columns (here the excerpt's dev part with
# its PTB tags, XPOS; make models uses CoNLL-2000), train-lex.xml reads it
# before tagdict_build.  The file must be the corpus's counts in order of
# first appearance; the tagger must beat the dictionary-only one on the
# test part and must depend on the lexicon: an empty one costs accuracy.
cp "$pos/lexicon.xml" "$pos/train-lex.xml" "$pos/eval-lex.xml" "$pos/annotate-lex.xml" \
   "$pos/pos-lex.tpl" "$tmp/"
sed -i "s|\.\./text/|$top_srcdir/samples/text/|" "$tmp/annotate-lex.xml"
awk -F '\t' '/^#/ { next } NF == 0 { print ""; next } $1 ~ /^[0-9]+$/ { print $2, $5, $4 }' \
    "$pos/dev.conllu" >"$tmp/lex.conll"
$P run "$tmp/lexicon.xml" -i "$tmp/lex.conll" >"$tmp/lex.report" 2>"$tmp/lex.err" ||
    { fail "lexicon.xml"; cat "$tmp/lex.err" >&2; }
grep -q "^tokens $(grep -c . "$tmp/lex.conll"), sentences 300" "$tmp/lex.report" ||
    { fail "lexicon.xml's report"; head -3 "$tmp/lex.report" >&2; }
awk 'BEGIN { print "#crfpipe-tagdict 1" }
     NF { if (!($1 in seen)) { seen[$1] = 1; w[++n] = $1 }
          if (!(($1, $2) in c)) tags[$1] = tags[$1] " " $2; c[$1, $2]++ }
     END { for (i = 1; i <= n; i++) { k = split(tags[w[i]], t, " "); line = w[i]
               for (j = 1; j <= k; j++) line = line "\t" t[j] "\t" c[w[i], t[j]]
               print line } }' "$tmp/lex.conll" | cmp -s - "$tmp/wsj.lexicon" ||
    fail "wsj.lexicon differs from the corpus's counts"
(cd "$tmp" && $P -q run train-lex.xml -i "$pos/train.conllu") || fail "train-lex.xml"
test -s "$tmp/pos-lex.model" && test -s "$tmp/pos-lex.tagdict" || fail "train-lex.xml wrote no model"
lex=$($P run "$tmp/eval-lex.xml" -i "$pos/test.conllu" | sed -n 's/^token accuracy: *\([0-9.]*\)%.*/\1/p')
printf '#crfpipe-tagdict 1\n' >"$tmp/wsj.lexicon"
none=$($P run "$tmp/eval-lex.xml" -i "$pos/test.conllu" | sed -n 's/^token accuracy: *\([0-9.]*\)%.*/\1/p')
awk -v a="$lex" -v b="$td" 'BEGIN { exit !(a > b + 0.1) }' ||
    fail "the lexicon tagger ($lex %) does not beat the dictionary tagger ($td %)"
awk -v a="$lex" -v b="$none" 'BEGIN { exit !(b < a - 0.5) }' ||
    fail "an empty lexicon ($none %) changes little ($lex % with it): are its features read?"
# raw text through both dictionaries: every token gets its tag, and the
# output is a valid corpus
printf 'The cat sat on the mat in Kerala.\nDr. Smith did not sit there.\n' |
    $P run "$tmp/annotate-lex.xml" -o "$tmp/raw.xml" || fail "annotate-lex.xml"
$P validate "$tmp/raw.xml" 2>/dev/null || fail "annotate-lex.xml's output does not validate"
test "$(grep -c 'type="Token"' "$tmp/raw.xml")" -eq "$(grep -c 'name="upos"' "$tmp/raw.xml")" ||
    fail "annotate-lex.xml left tokens without upos"
rm -f "$tmp/wsj.lexicon"
expect_fail "wsj.lexicon" $P run "$tmp/eval-lex.xml" -i "$pos/test.conllu"

# 3c. the entity tagger reading the lexicon (samples/ner/*-lex.xml), laid
# out as in samples/ so that the pipelines' relative paths hold: the first
# 600 WNUT-17 training tweets, POS from the excerpt's tagger (part 3), the
# lexicon of part 3b.  It must find entities on the first 300 dev tweets,
# read the lexicon (an empty one changes its output) and run from raw text
# to GATE XML.
sd=$tmp/samples
mkdir -p "$sd/ner" "$sd/pos" "$sd/out" "$sd/text"
ner="$top_srcdir/samples/ner"
cp "$ner/pos-tag.xml" "$ner/train-lex.xml" "$ner/tag-lex.xml" "$ner/annotate-lex.xml" \
   "$ner/entities-lex.tpl" "$sd/ner/"
cp "$tmp/plain.model" "$sd/pos/pos.model"
cp "$pos/lexicon.xml" "$sd/pos/"
cp "$top_srcdir/samples/text/en-abbreviations.txt" "$sd/text/"
$P run "$sd/pos/lexicon.xml" -i "$tmp/lex.conll" >/dev/null 2>&1 || fail "lexicon.xml again"
first() { awk -v n="$1" 'NF == 0 { if (++k >= n) exit } { print }' "$2"; }
first 600 "$ner/train.conll" >"$tmp/wtrain.conll"
first 300 "$ner/dev.conll" >"$tmp/wdev.conll"
$P run "$sd/ner/pos-tag.xml" -i "$tmp/wtrain.conll" -o "$sd/out/wnut-train.xml" &&
    $P run "$sd/ner/pos-tag.xml" -i "$tmp/wdev.conll" -o "$sd/out/wnut-dev.xml" ||
    fail "pos-tag.xml on WNUT-17"
(cd "$sd/ner" && $P -q run train-lex.xml -i "$sd/out/wnut-train.xml") || fail "ner train-lex.xml"
$P run "$sd/ner/tag-lex.xml" -i "$sd/out/wnut-dev.xml" -o "$sd/ner-dev.xml" || fail "ner tag-lex.xml"
test "$(grep -c 'type="Entity"' "$sd/ner-dev.xml")" -gt 10 || fail "tag-lex.xml found few entities"
cp "$sd/pos/wsj.lexicon" "$sd/pos/wsj.keep"
printf '#crfpipe-tagdict 1\n' >"$sd/pos/wsj.lexicon"
$P run "$sd/ner/tag-lex.xml" -i "$sd/out/wnut-dev.xml" -o "$sd/ner-dev0.xml" || fail "empty lexicon"
cmp -s "$sd/ner-dev.xml" "$sd/ner-dev0.xml" && fail "the entity tagger ignores its lexicon"
mv "$sd/pos/wsj.keep" "$sd/pos/wsj.lexicon"
echo "Obama visited Paris with the CEO of Apple." |
    $P run "$sd/ner/annotate-lex.xml" -o "$tmp/raw.gate" || fail "ner annotate-lex.xml"
grep -q '<GateDocument' "$tmp/raw.gate" && grep -q 'Type="Token"' "$tmp/raw.gate" ||
    fail "ner annotate-lex.xml wrote no GATE document with tokens"

# 4. errors: bad dictionaries name the file and the line; parameters; a
# token without the label
# bad_dict NAME CONTENT MESSAGE: a dictionary file NAME.dict holding CONTENT
# (a printf format) must stop the lookup with MESSAGE after its name
bad_dict() {
    printf "$2" >"$tmp/$1.dict"
    lookup "$tmp/$1.xml" "$tmp/$1.dict"
    expect_fail "$1.dict: $3" $P run "$tmp/$1.xml" -i "$tmp/b.conll"
}
bad_dict h 'word\tDET\t1\n' "line 1: not a tag dictionary"
bad_dict crlf '#crfpipe-tagdict 1\r\nthe\tDET\t2\r\n' "line 1: CR LF line ends"
bad_dict bom '\357\273\277#crfpipe-tagdict 1\nthe\tDET\t2\n' "line 1: a byte-order mark"
bad_dict c '#crfpipe-tagdict 1\nthe\tDET\t2\nrun\tNOUN\tx\n' "line 3: count 'x' of tag 'NOUN'"
bad_dict d '#crfpipe-tagdict 1\nthe\tDET\t2\nthe\tPRON\t1\n' "line 3: the word 'the' is listed twice"
bad_dict f '#crfpipe-tagdict 1\nthe\tDET\t2\nrun\tNOUN' "line 3: no newline at the end"
bad_dict g '#crfpipe-tagdict 1\nthe\tDET\n' "line 2: tag 'DET' without a count"
bad_dict u '#crfpipe-tagdict 1\nth\377\tDET\t1\n' "line 2: not UTF-8"
lookup "$tmp/n.xml" "$tmp/nonesuch.dict"
expect_fail "nonesuch.dict: No such file" $P run "$tmp/n.xml" -i "$tmp/b.conll"
build "$tmp/k.xml" "$tmp/k.dict" word,tag word '<param name="folds" value="1"/>'
expect_fail "folds must be from 2 to 1000" $P run "$tmp/k.xml" -i "$tmp/a.conll"
build "$tmp/l.xml" "$tmp/l.dict" word,pos word
expect_fail "tagdict_build: document '.*', token 1: no 'tag' feature" $P run "$tmp/l.xml" -i "$tmp/a.conll"
test ! -e "$tmp/l.dict" || fail "a failed build left a dictionary"
# a corpus cut into two documents (a reader's batches) is refused, not
# counted in part
printf 'the DET\n\n-DOCSTART- X\n\nrun VERB\n' >"$tmp/two.conll"
build "$tmp/two.xml" "$tmp/two.dict" word,tag word
expect_fail "tagdict_build: a second document ('.*') before the end of the input" \
    $P run "$tmp/two.xml" -i "$tmp/two.conll"
test ! -e "$tmp/two.dict" && test ! -e "$tmp/two.dict.partial" ||
    fail "a refused corpus left a dictionary"
: >"$tmp/empty.conll"
build "$tmp/empty.xml" "$tmp/empty.dict" word,tag word
expect_fail "tagdict_build: the input had no document" $P run "$tmp/empty.xml" -i "$tmp/empty.conll"
test ! -e "$tmp/empty.dict" || fail "an empty input left a dictionary"
printf 'a B|C\n' >"$tmp/bar.conll"
build "$tmp/bar.xml" "$tmp/bar.dict" word,tag word
expect_fail "token 1: .*a tag with a '|'" $P run "$tmp/bar.xml" -i "$tmp/bar.conll"
printf '#crfpipe-tagdict 1\nthe\tDET|X\t1\n' >"$tmp/bar.dict"
lookup "$tmp/bar2.xml" "$tmp/bar.dict"
expect_fail "bar.dict: line 2: tag 'DET|X' has a '|'" $P run "$tmp/bar2.xml" -i "$tmp/b.conll"
finish
