#!/bin/sh
# Training on GATE documents whose gold is annotations over the text
# (span_labels): WNUT-17 tweets written as one GATE document (Tokens and
# Sentences in the default set, person/location/... spans in "Key") train
# the very model the same tweets train as a BIO column file; spans made by
# the tagger become its labels again; BIOES and IO; and the spans a BIO
# labelling cannot hold (nested, over no token, cut inside a token, over
# two sentences) are each named in a warning, and a span without its type
# is an error.  Then the annotation diff (eval --spans): counts by hand, and
# on the tagged tweets a strict F1 equal to conlleval's chunk F1.
. "$top_srcdir/tests/pipeline/common.sh"
ner="$top_srcdir/samples/ner"
tpl="$top_srcdir/tests/pipeline/tiny.tpl"
types=person,location,corporation,product,creative-work,group

# The first 200 tweets that are all ASCII (so that byte offsets are GATE's
# UTF-16 offsets), as columns (form, label) and as a GATE document.
LC_ALL=C awk -v max=200 '
    NF == 0 { if (n) { if (!bad) { printf "%s\n", s; k++ } } n = 0; s = ""; bad = 0
              if (k == max) exit; next }
    { n++; s = s $1 "\t" $2 "\n"; if ($0 ~ /[\200-\377]/) bad = 1 }' \
    "$ner/train.conll" >"$tmp/train.tsv"
LC_ALL=C awk -F'\t' -v types="$types" '
    function esc(x) { gsub(/&/, "\\&amp;", x); gsub(/</, "\\&lt;", x); gsub(/>/, "\\&gt;", x); return x }
    function close_span() { if (etype != "") { spans = spans sprintf("<Annotation Id=\"%d\" Type=\"%s\" StartNode=\"%d\" EndNode=\"%d\"></Annotation>\n", ++id, etype, estart, eend); etype = "" } }
    NF == 0 { close_span()
              if (ntok) { sents = sents sprintf("<Annotation Id=\"%d\" Type=\"Sentence\" StartNode=\"%d\" EndNode=\"%d\"></Annotation>\n", ++id, sstart, pos); text = text "\n"; pos++ }
              ntok = 0; next }
    { if (ntok) { text = text " "; pos++ } else sstart = pos
      ntok++
      text = text sprintf("<Node id=\"%d\"/>%s<Node id=\"%d\"/>", pos, esc($1), pos + length($1))
      toks = toks sprintf("<Annotation Id=\"%d\" Type=\"Token\" StartNode=\"%d\" EndNode=\"%d\">\n<Feature><Name className=\"java.lang.String\">form</Name><Value className=\"java.lang.String\">%s</Value></Feature>\n</Annotation>\n", ++id, pos, pos + length($1), esc($1))
      if ($2 ~ /^B-/ || ($2 ~ /^I-/ && substr($2, 3) != etype)) { close_span(); etype = substr($2, 3); estart = pos }
      else if ($2 == "O") close_span()
      pos += length($1); eend = pos }
    END { close_span()
          print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<GateDocument version=\"3\">\n<GateDocumentFeatures>\n</GateDocumentFeatures>"
          print "<TextWithNodes>" text "</TextWithNodes>"
          print "<AnnotationSet>\n" toks sents "</AnnotationSet>"
          print "<AnnotationSet Name=\"Key\">\n" spans "</AnnotationSet>\n</GateDocument>" }' \
    "$tmp/train.tsv" >"$tmp/train.gate.xml"
grep -q 'Type="person"' "$tmp/train.gate.xml" || fail "the GATE document has no person"

# 1. The same model, weight for weight, from the GATE spans and from the
# BIO columns.
cat >"$tmp/train.xml" <<EOF
<pipeline xmlns="urn:crfpipe:pipeline:1">
  <stage plugin="gate_reader"/>
  <stage plugin="span_labels">
    <param name="span-set" value="Key"/><param name="types" value="$types"/>
  </stage>
  <stage plugin="templates"><param name="template" value="$tpl"/></stage>
  <stage plugin="lbfgs">
    <param name="model" value="$tmp/gate.model"/>
    <param name="threads" value="1"/><param name="max-iter" value="20"/>
  </stage>
</pipeline>
EOF
"$CRFPIPE" -q run "$tmp/train.xml" -i "$tmp/train.gate.xml" || fail "training on the GATE document"
"$CRFPIPE" -q train --template "$tpl" --format conll --columns form,label --threads 1 \
    --max-iter 20 --model "$tmp/col.model" "$tmp/train.tsv" || fail "training on the columns"
"$CRFPIPE" model dump "$tmp/gate.model" | grep -E '^(U|B)	' >"$tmp/gate.w"
"$CRFPIPE" model dump "$tmp/col.model" | grep -E '^(U|B)	' >"$tmp/col.w"
[ -s "$tmp/gate.w" ] && cmp -s "$tmp/gate.w" "$tmp/col.w" ||
    fail "the GATE spans trained other weights than their BIO columns"
grep -q 'B-person' "$tmp/gate.w" || fail "no B-person weight"
# (the pipeline names no label: span_labels made its output the default)
# Without span_labels, a GATE document names no label column: training
# refuses to guess one (ANNIE's last token feature would do).
expect_fail "its tokens declare no label column (features form): give --label FEATURE" \
    "$CRFPIPE" train --template "$tpl" --model "$tmp/x.model" "$tmp/train.gate.xml"

# 2. The tagger's spans made labels again: the labels it predicted (as
# conlleval reads them: I-x after O or another type starts a span).
cat >"$tmp/relabel.xml" <<EOF
<pipeline xmlns="urn:crfpipe:pipeline:1">
  <stage plugin="gate_reader"/>
  <stage plugin="viterbi"><param name="model" value="$tmp/gate.model"/>
    <param name="spans" value="Entity"/><param name="span-feature" value="kind"/></stage>
  <stage plugin="span_labels">
    <param name="types" value="Entity"/><param name="type-feature" value="kind"/>
    <param name="output" value="again"/>
  </stage>
  <stage plugin="conll_writer"><param name="columns" value="form,predicted,again"/>
    <param name="separator" value="tab"/></stage>
</pipeline>
EOF
"$CRFPIPE" -q run "$tmp/relabel.xml" -i "$tmp/train.gate.xml" -o "$tmp/again.txt" ||
    fail "tag and relabel"
# columns: form predicted again
LC_ALL=C awk -F'\t' 'NF == 0 { prev = "O"; next }
    { p = $(NF - 1); if (p ~ /^I-/ && (prev == "O" || substr(prev, 3) != substr(p, 3))) p = "B-" substr(p, 3)
      prev = $(NF - 1); n++; if (p != $NF) { bad++; if (bad < 4) print "token " n ": " $0 > "/dev/stderr" } }
    END { exit bad > 0 || n == 0 }' "$tmp/again.txt" || fail "the tagger's spans are not its labels again"
grep -q 'B-' "$tmp/again.txt" || fail "the tagger found no entity: nothing compared"

# 3. BIOES and IO on the gold.
for sc in bioes io; do
    cat >"$tmp/$sc.xml" <<EOF
<pipeline xmlns="urn:crfpipe:pipeline:1">
  <stage plugin="gate_reader"/>
  <stage plugin="span_labels">
    <param name="span-set" value="Key"/><param name="types" value="$types"/>
    <param name="scheme" value="$sc"/>
  </stage>
  <stage plugin="conll_writer"><param name="columns" value="form,label"/>
    <param name="separator" value="tab"/></stage>
</pipeline>
EOF
    "$CRFPIPE" -q run "$tmp/$sc.xml" -i "$tmp/train.gate.xml" -o "$tmp/$sc.txt" || fail "scheme $sc"
done
# the form and label columns of each against the BIO gold converted
LC_ALL=C awk -F'\t' 'NF == 0 { print; next } { print $1 "\t" $NF }' "$tmp/bioes.txt" >"$tmp/bioes.got"
LC_ALL=C awk -F'\t' 'function flush(  i, t, l, nx) {
        for (i = 1; i <= n; i++) { l = y[i]; nx = i < n ? y[i + 1] : "O"
            if (l != "O") { t = substr(l, 3); last = !(nx ~ /^I-/ && substr(nx, 3) == t)
                l = (l ~ /^B-/ ? (last ? "S-" : "B-") : (last ? "E-" : "I-")) t }
            print w[i] "\t" l }
        if (n) print ""; n = 0 }
    NF == 0 { flush(); next } { w[++n] = $1; y[n] = $2 } END { flush() }' "$tmp/train.tsv" >"$tmp/bioes.want"
cmp -s "$tmp/bioes.got" "$tmp/bioes.want" || fail "BIOES labels differ from the BIO gold converted"
LC_ALL=C awk -F'\t' 'NF && $NF != "O" && $NF !~ /^I-/ { bad = 1 } END { exit bad }' "$tmp/io.txt" ||
    fail "IO labels other than I- and O"

# 4. Spans a BIO labelling cannot hold, each named; a span without its type.  (The
# first type, Person, has no span: it once read as out of memory.)
cat >"$tmp/odd.gate.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<GateDocument version="3">
<GateDocumentFeatures>
</GateDocumentFeatures>
<TextWithNodes><Node id="0"/>New<Node id="3"/> <Node id="4"/>York<Node id="8"/> <Node id="9"/>Times<Node id="14"/>.<Node id="15"/>  <Node id="17"/>
<Node id="18"/>Paris<Node id="23"/>-based<Node id="29"/> <Node id="30"/>firm<Node id="34"/>
<Node id="35"/>Big<Node id="38"/> <Node id="39"/>Apple<Node id="44"/></TextWithNodes>
<AnnotationSet>
<Annotation Id="1" Type="Token" StartNode="0" EndNode="3"></Annotation>
<Annotation Id="2" Type="Token" StartNode="4" EndNode="8"></Annotation>
<Annotation Id="3" Type="Token" StartNode="9" EndNode="14"></Annotation>
<Annotation Id="4" Type="Token" StartNode="14" EndNode="15"></Annotation>
<Annotation Id="5" Type="Token" StartNode="18" EndNode="29"></Annotation>
<Annotation Id="6" Type="Token" StartNode="30" EndNode="34"></Annotation>
<Annotation Id="7" Type="Token" StartNode="35" EndNode="38"></Annotation>
<Annotation Id="8" Type="Token" StartNode="39" EndNode="44"></Annotation>
<Annotation Id="9" Type="Sentence" StartNode="0" EndNode="15"></Annotation>
<Annotation Id="10" Type="Sentence" StartNode="18" EndNode="34"></Annotation>
<Annotation Id="11" Type="Sentence" StartNode="35" EndNode="44"></Annotation>
</AnnotationSet>
<AnnotationSet Name="Key">
<Annotation Id="20" Type="Organization" StartNode="0" EndNode="14"></Annotation>
<Annotation Id="21" Type="Location" StartNode="0" EndNode="8"></Annotation>
<Annotation Id="22" Type="Organization" StartNode="9" EndNode="15"></Annotation>
<Annotation Id="23" Type="Location" StartNode="15" EndNode="17"></Annotation>
<Annotation Id="24" Type="Location" StartNode="18" EndNode="23"></Annotation>
<Annotation Id="25" Type="Organization" StartNode="30" EndNode="38"></Annotation>
</AnnotationSet>
</GateDocument>
EOF
sed -e 's|value="person,location,corporation,product,creative-work,group"|value="Person,Organization,Location"|' \
    "$tmp/bioes.xml" | sed 's|value="bioes"|value="bio"|' >"$tmp/odd.xml"
"$CRFPIPE" run "$tmp/odd.xml" -i "$tmp/odd.gate.xml" -o "$tmp/odd.txt" 2>"$tmp/err" ||
    fail "odd spans"
for w in "2 spans overlapping a span taken before (nested or crossing): left out (the first: Location 'Location' at 0..8)" \
         "1 span over no token: left out (the first: Location 'Location' at 15..17)" \
         "1 span with an end inside a token" \
         "1 span over two sentences or more"; do
    grep -qF "$w" "$tmp/err" || { fail "no warning: $w"; cat "$tmp/err" >&2; }
done
# New York Times . / Paris-based firm / Big Apple: the organisation, "Paris" cut inside its
# token (which takes the location), the organisation over two sentences
[ "$(cut -f2 "$tmp/odd.txt" | tr '\n' ' ')" = "B-Organization I-Organization I-Organization O  B-Location B-Organization  I-Organization O  " ] ||
    fail "odd spans labelled $(cut -f2 "$tmp/odd.txt" | tr '\n' ' ')"
sed 's|<Annotation Id="20" Type="Organization"|<Annotation Id="20" Type="Org"|' "$tmp/odd.gate.xml" >"$tmp/notype.gate.xml"
sed 's|<param name="scheme" value="bio"/>|<param name="scheme" value="bio"/><param name="type-feature" value="kind"/>|' \
    "$tmp/odd.xml" >"$tmp/notype.xml"
expect_fail "Organization at 0..14 has no 'kind' feature" "$CRFPIPE" run "$tmp/notype.xml" -i "$tmp/odd.gate.xml"

# 5. The annotation diff (eval --spans).  By hand: Person exact (correct),
# a Location cut short (partial), a Location answered as Organization
# (missing, and a spurious Organization), an Organization not found
# (missing), a Person too many (spurious).
cat >"$tmp/diff.gate.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<GateDocument version="3">
<GateDocumentFeatures>
</GateDocumentFeatures>
<TextWithNodes><Node id="0"/>Alice<Node id="5"/> <Node id="6"/>met<Node id="9"/> <Node id="10"/>Pari<Node id="14"/>s<Node id="15"/> <Node id="16"/>and<Node id="19"/> <Node id="20"/>Paris<Node id="25"/> <Node id="26"/>at<Node id="28"/> <Node id="29"/> <Node id="30"/>ACME Corp.<Node id="40"/> <Node id="41"/>with<Node id="45"/> <Node id="46"/>Bob<Node id="49"/></TextWithNodes>
<AnnotationSet>
<Annotation Id="1" Type="Person" StartNode="0" EndNode="5"></Annotation>
<Annotation Id="2" Type="Location" StartNode="10" EndNode="14"></Annotation>
<Annotation Id="3" Type="Organization" StartNode="20" EndNode="25"></Annotation>
<Annotation Id="4" Type="Person" StartNode="46" EndNode="49"></Annotation>
</AnnotationSet>
<AnnotationSet Name="Key">
<Annotation Id="11" Type="Person" StartNode="0" EndNode="5"></Annotation>
<Annotation Id="12" Type="Location" StartNode="10" EndNode="15"></Annotation>
<Annotation Id="13" Type="Location" StartNode="20" EndNode="25"></Annotation>
<Annotation Id="14" Type="Organization" StartNode="30" EndNode="40"></Annotation>
</AnnotationSet>
</GateDocument>
EOF
"$CRFPIPE" eval --spans Person,Location,Organization "$tmp/diff.gate.xml" >"$tmp/diff.txt" ||
    fail "eval --spans"
# label correct partial missing spurious, then strict P R F1, lenient P R F1
for want in "Location 0 1 1 0 0.00 0.00 0.00 100.00 50.00 66.67" \
            "Organization 0 0 1 1 0.00 0.00 0.00 0.00 0.00 0.00" \
            "Person 1 0 0 1 50.00 100.00 66.67 50.00 100.00 66.67" \
            "overall 1 1 2 2 25.00 25.00 25.00 50.00 50.00 50.00"; do
    set -- $want
    got=$(awk -v l="$1" '$1 == l { print $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }' "$tmp/diff.txt")
    [ "$got" = "$want" ] || fail "annotation diff: expected '$want', got '$got'"
done
expect_fail "the same annotations of set ''" "$CRFPIPE" eval --spans Person \
    --diff-param key-set= "$tmp/diff.gate.xml"
expect_fail "no annotation type to compare" "$CRFPIPE" eval --spans , "$tmp/diff.gate.xml"
expect_fail "goes without --label" "$CRFPIPE" eval --spans Person --label label "$tmp/diff.gate.xml"

# Hostile: 20,000 tokens under 10,000 nested spans in each set.  Each stage
# decides a span's fate without walking its tokens again (linear, not the
# product of the counts, which took seconds here and minutes at 10x).
LC_ALL=C awk -v N=20000 'BEGIN {
    printf "<?xml version=\"1.0\"?>\n<GateDocument version=\"3\">\n<GateDocumentFeatures>\n"
    printf "</GateDocumentFeatures>\n<TextWithNodes>"
    for (i = 0; i < N; i++) printf "<Node id=\"%d\"/>ab<Node id=\"%d\"/> ", 3 * i, 3 * i + 2
    printf "</TextWithNodes>\n<AnnotationSet>\n"
    for (i = 0; i < N; i++) printf "<Annotation Id=\"%d\" Type=\"Token\" StartNode=\"%d\" EndNode=\"%d\"/>\n", ++id, 3 * i, 3 * i + 2
    for (i = 0; i < N / 2; i++) printf "<Annotation Id=\"%d\" Type=\"Person\" StartNode=\"%d\" EndNode=\"%d\"/>\n", ++id, 3 * i, 3 * (N - 1 - i) + 2
    printf "</AnnotationSet>\n<AnnotationSet Name=\"Key\">\n"
    for (i = 0; i < N / 2; i++) printf "<Annotation Id=\"%d\" Type=\"Person\" StartNode=\"%d\" EndNode=\"%d\"/>\n", ++id, 3 * i + 3, 3 * (N - 1 - i) + 2
    printf "</AnnotationSet>\n</GateDocument>\n" }' >"$tmp/nest.gate.xml"
timeout 20 "$CRFPIPE" eval --spans Person "$tmp/nest.gate.xml" >"$tmp/nest.txt" ||
    fail "eval --spans on nested spans (status $?)"
grep -q '^overall  *0  *10000  *0  *0 ' "$tmp/nest.txt" || fail "nested spans: $(grep overall "$tmp/nest.txt")"
sed 's|value="Person,Organization,Location"|value="Person"|' "$tmp/odd.xml" >"$tmp/nest.xml"
timeout 20 "$CRFPIPE" run "$tmp/nest.xml" -i "$tmp/nest.gate.xml" -o "$tmp/nest.conll" 2>"$tmp/err" ||
    fail "span_labels on nested spans (status $?)"
grep -q "': 9999 spans overlapping a span taken before" "$tmp/err" || fail "nested spans not counted"

# 6. A tagger's spans against GATE's gold: the strict F1 of the diff is
# conlleval's chunk F1 of the same labels, since a span matches exactly
# when its tokens do.
cat >"$tmp/tag-gate.xml" <<EOF
<pipeline xmlns="urn:crfpipe:pipeline:1">
  <stage plugin="gate_reader"/>
  <stage plugin="span_labels">
    <param name="span-set" value="Key"/><param name="types" value="$types"/>
  </stage>
  <stage plugin="viterbi"><param name="model" value="$tmp/gate.model"/>
    <param name="spans" value="Entity"/><param name="span-feature" value="kind"/></stage>
  <stage plugin="WRITER"/>
</pipeline>
EOF
sed 's|<stage plugin="WRITER"/>|<stage plugin="gate_writer"/>|' "$tmp/tag-gate.xml" >"$tmp/tg.xml"
"$CRFPIPE" -q run "$tmp/tg.xml" -i "$tmp/train.gate.xml" -o "$tmp/tagged.gate.xml" || fail "tag to GATE"
sed 's|<stage plugin="WRITER"/>|<stage plugin="conll_writer"><param name="columns" value="form,label,predicted"/><param name="separator" value="tab"/></stage>|' \
    "$tmp/tag-gate.xml" >"$tmp/tc.xml"
"$CRFPIPE" -q run "$tmp/tc.xml" -i "$tmp/train.gate.xml" -o "$tmp/tagged.txt" || fail "tag to columns"
"$CRFPIPE" eval --spans "$types" --diff-param response-types=Entity \
    --diff-param response-feature=kind "$tmp/tagged.gate.xml" >"$tmp/d2.txt" || fail "diff of the tagger"
f_diff=$(awk '$1 == "overall" { print $8 }' "$tmp/d2.txt")
f_conll=$("$CRFPIPE" eval "$tmp/tagged.txt" | awk '/^chunk F1:/ { print $3 }')
[ -n "$f_diff" ] && [ "$f_diff" = "$f_conll" ] ||
    fail "strict span F1 $f_diff is not conlleval's chunk F1 $f_conll"

# The spans in a set of their own (tag --span-set), GATE's habit for a
# system's output: compared from there, the same figures.
"$CRFPIPE" tag --model "$tmp/gate.model" --spans Entity --span-feature kind --span-set Response \
    -o "$tmp/resp.gate.xml" "$tmp/train.gate.xml" || fail "tag --span-set"
f_set=$("$CRFPIPE" eval --spans "$types" --diff-param response-set=Response \
    --diff-param response-types=Entity --diff-param response-feature=kind "$tmp/resp.gate.xml" |
    awk '$1 == "overall" { print $8 }')
[ "$f_set" = "$f_diff" ] || fail "spans in their own set: strict F1 $f_set, $f_diff before"
grep -q '<AnnotationSet Name="Response">' "$tmp/resp.gate.xml" || fail "no Response set written"

# 7. The same from the command line: train --spans trains the pipeline's
# model, and eval --model --spans tags and scores in one go.
"$CRFPIPE" -q train --spans "$types" --template "$tpl" --threads 1 --max-iter 20 \
    --model "$tmp/cli.model" "$tmp/train.gate.xml" || fail "train --spans"
"$CRFPIPE" model dump "$tmp/cli.model" | grep -E '^(U|B)	' | cmp -s - "$tmp/gate.w" ||
    fail "train --spans trained another model than the pipeline"
f_cli=$("$CRFPIPE" eval --model "$tmp/gate.model" --spans "$types" "$tmp/train.gate.xml" |
        awk '$1 == "overall" { print $8 }')
[ "$f_cli" = "$f_diff" ] || fail "eval --model --spans: strict F1 $f_cli, the pipeline's $f_diff"
# The confidence curve (--posteriors gives each span its prob): at
# threshold 0 it holds every response and the strict figures above; the
# responses and the correct ones never grow with the threshold.
"$CRFPIPE" eval --model "$tmp/gate.model" --spans "$types" --diff-param confidence=prob \
    "$tmp/train.gate.xml" >"$tmp/curve.txt" || fail "eval --spans with a confidence curve"
awk -v f="$f_diff" '
    $1 == "overall" { resp = $2 + $3 + $5; corr = $2; f1 = $8 }
    /^strict precision and recall/ { in_curve = 1; next }
    in_curve && $1 ~ /^[0-9.]+$/ {
        n++
        if ($1 == "0.00" && ($2 != resp || $3 != corr || $6 != f1)) { print "at 0: " $0; bad = 1 }
        if (n > 1 && ($2 > lr || $3 > lc)) { print "grows: " $0; bad = 1 }
        lr = $2; lc = $3 }
    END { exit bad || n != 20 }' "$tmp/curve.txt" ||
    { fail "the confidence curve is not consistent"; cat "$tmp/curve.txt" >&2; }
expect_fail "has no 'conf' feature" "$CRFPIPE" eval --spans Person --diff-param confidence=conf \
    "$tmp/diff.gate.xml"
expect_fail "--span-set needs --spans" "$CRFPIPE" train --span-set Key --template "$tpl" \
    --model "$tmp/x.model" "$tmp/train.gate.xml"
# --spans of a set the documents lack labels every token O: both said
"$CRFPIPE" train --spans "$types" --span-set Gold --template "$tpl" --threads 1 --max-iter 2 \
    --model "$tmp/o.model" "$tmp/train.gate.xml" 2>"$tmp/err" || fail "train --span-set Gold"
grep -q "has no annotation set 'Gold' (it has '', 'Key'): its tokens are all O" "$tmp/err" ||
    { fail "no warning about the missing set"; cat "$tmp/err" >&2; }
grep -q "every token has the label 'O' (feature label): the model can only predict it" "$tmp/err" ||
    fail "no warning about the single label"

# 8. A GATE document declares no columns: tagging it with a model of
# columns its tokens lack (word, where they have form) warns once, naming
# them, since a positional template would read whatever feature stands
# there; input-columns maps them, and a model of form is quiet.
printf 'U00:%%x[0,0]\nU01:%%x[-1,0]\nB\n' >"$tmp/word.tpl"
"$CRFPIPE" -q train --template "$tmp/word.tpl" --format conll --columns word,label --threads 1 \
    --max-iter 5 --model "$tmp/word.model" "$tmp/train.tsv" || fail "train on word"
"$CRFPIPE" tag --model "$tmp/word.model" --to xml -o "$tmp/w.xml" "$tmp/train.gate.xml" 2>"$tmp/err" ||
    fail "tag the GATE document"
[ "$(grep -c "declares no columns, and its tokens lack the model's column word (they have: form)" \
    "$tmp/err")" = 1 ] || { fail "no single warning about the missing column"; cat "$tmp/err" >&2; }
for m in "word.model --input-columns word=form" "col.model"; do
    set -- $m
    "$CRFPIPE" tag --model "$tmp/$1" ${2:-} ${3:-} --to xml -o "$tmp/w.xml" "$tmp/train.gate.xml" \
        2>"$tmp/err" || fail "tag with $m"
    grep -q "declares no columns" "$tmp/err" && fail "a warning with $m"
done
finish
