#!/bin/sh
# markup_reader and markup_writer: any XML or HTML file in (its character
# data as the text, its elements as "Original markups" annotations), and
# documents out with their annotations inline.  Round trips both ways,
# HTML's text, the writer's nesting rules, and hostile input.
. "$top_srcdir/tests/pipeline/common.sh"
C=$CRFPIPE
cd "$tmp"

# The annotations of a crfpipe XML file, one per line, "set|type|start|end|
# name=value;..." in a stable order (ids left out: they need not survive).
annots() {
    awk '
    /<annotations / { match($0, /set="[^"]*"/); set = substr($0, RSTART + 5, RLENGTH - 6) }
    /<a id=/ {
        if (cur != "") print cur feats
        match($0, /type="[^"]*"/); ty = substr($0, RSTART + 6, RLENGTH - 7)
        match($0, /start="[0-9]*"/); st = substr($0, RSTART + 7, RLENGTH - 8)
        match($0, /end="[0-9]*"/); en = substr($0, RSTART + 5, RLENGTH - 6)
        cur = set "|" ty "|" st "|" en "|"; feats = ""
        if ($0 ~ /\/>$/) { print cur; cur = "" }
        next
    }
    /<f name=/ && cur != "" { sub(/^ */, ""); feats = feats $0 ";"; next }
    /<\/a>/ { if (cur != "") print cur feats; cur = "" }
    ' "$1" | LC_ALL=C sort
}
# --- XML in: text, elements, attributes, namespaces, ids in start-tag order
cat >a.xml <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<!-- a comment is not text -->
<doc xmlns:x="urn:x" lang="en">
  <p id="1"><PER type="person">Barack Obama</PER> visited <LOC>Paris</LOC> &amp; <x:y a="&lt;1&gt;">Lyon</x:y>.<br/></p>
  <p>Caf&#233; <![CDATA[<raw> & text]]> &#x1F600; 東京</p>
</doc>
EOF
"$C" convert --from markup --to xml a.xml a.crf.xml || fail "markup -> xml"
"$C" validate a.crf.xml >/dev/null || fail "markup_reader output is not valid crfpipe XML"
grep -q 'set="Original markups"' a.crf.xml || fail "no Original markups set"
annots a.crf.xml >a.ann
cat >a.want <<'EOF'
Original markups|#comment|0|0|<f name="text"> a comment is not text </f>;
Original markups|LOC|24|29|
Original markups|PER|3|15|<f name="type">person</f>;
Original markups|br|37|37|
Original markups|doc|0|64|<f name="xmlns:x">urn:x</f>;<f name="lang">en</f>;
Original markups|p|3|37|<f name="id">1</f>;
Original markups|p|40|63|
Original markups|x:y|32|36|<f name="a">&lt;1&gt;</f>;
EOF
LC_ALL=C sort a.want | diff - a.ann >/dev/null || { fail "annotations of a.xml"; diff a.want a.ann >&2; }
# ids follow the start tags (the comment before the root first)
awk '/<a id=/' a.crf.xml | sed 's/.*id="\([0-9]*\)" type="\([^"]*\)".*/\1\2/' | tr '\n' ' ' >a.ids
[ "$(cat a.ids)" = "0#comment 1doc 2p 3PER 4LOC 5x:y 6br 7p " ] ||
    fail "ids not in start-tag order: $(cat a.ids)"
# the text: UTF-16 offsets (the emoji counts 2), so PER's span is its words
"$C" convert --from markup --to markup --writer-param types=PER a.xml >per.xml || fail "types=PER"
grep -q '<PER type="person">Barack Obama</PER>' per.xml || fail "PER not around its words: $(cat per.xml)"
grep -q '<document>' per.xml || fail "no <document> wrapper when the root is not written"

# --- markup -> markup: a file in the writer's form comes back byte for byte
cat >canon.xml <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<doc lang="en">
  <p id="1"><PER type="person">Barack Obama</PER> visited <LOC>Paris</LOC> &amp; <x:y xmlns:x="urn:x" a="&lt;1&gt;">Lyon</x:y>.<br/></p>
  <p>Café &lt;raw&gt; &amp; text 😀 東京&#13;
<e/><f><g/>x</f></p>
</doc>
EOF
"$C" convert --from markup --to markup canon.xml canon.out || fail "canon round trip"
cmp -s canon.xml canon.out || { fail "markup -> markup changed the file"; diff canon.xml canon.out >&2; }

# --- crfpipe document -> markup -> crfpipe document: the same text and
# annotations (spans, types, string features), from a tokenizer's output
printf 'Dr. Smith met Ann & Bob in New York.\nIt rained <hard>.\n\n  Tabs\tand CR\r\nend.\n' >t.txt
"$C" run "$top_srcdir/tests/text/markup-tok.xml" -i t.txt -o t.crf.xml || fail "tokenize"
"$C" convert --from xml --to markup t.crf.xml t.mk.xml || fail "xml -> markup"
"$C" convert --from markup --to xml --reader-param set= t.mk.xml t.back.xml || fail "markup -> xml"
annots t.crf.xml >t.ann1
annots t.back.xml | grep -v '^|document|' >t.ann2
[ -s t.ann1 ] || fail "no annotations from the tokenizer"
cmp -s t.ann1 t.ann2 || { fail "annotations changed in the markup round trip"; diff t.ann1 t.ann2 >&2 | head; }
# the text, byte for byte (CR, tab, '<' included)
"$C" convert --from xml --to markup --writer-param types=none --writer-param declaration=false \
    t.crf.xml t.plain.xml
"$C" convert --from markup --to markup --writer-param types=none --writer-param declaration=false \
    t.mk.xml t.plain2.xml
cmp -s t.plain.xml t.plain2.xml || fail "text changed in the round trip"
grep -q 'Tabs	and CR&#13;' t.plain.xml || fail "tab or CR not kept: $(cat t.plain.xml)"
grep -q 'rained &lt;hard&gt;' t.plain.xml || fail "< > not escaped"

# --- the writer: nesting, crossing, names, sets and types, corpus
cat >w.xml <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<corpus xmlns="urn:crfpipe:corpus:1">
  <document id="d1" offsets="utf16">
    <text>John Smith lives in New York City.</text>
    <annotations set="">
      <a id="1" type="Entity" start="0" end="10"><f name="type">PER</f><f name="conf">0.5</f></a>
      <a id="2" type="Entity" start="20" end="33"><f name="type">LOC</f></a>
      <a id="3" type="Chunk" start="5" end="16"/>
      <a id="4" type="Sentence" start="0" end="34"/>
      <a id="5" type="bad name" start="0" end="4"/>
      <a id="6" type="Mark" start="20" end="20"/>
    </annotations>
    <annotations set="Key">
      <a id="7" type="Entity" start="20" end="28"><f name="type">LOC</f><f name="9x">v</f></a>
    </annotations>
  </document>
</corpus>
EOF
"$C" convert --from xml --to markup w.xml w.out 2>w.err || fail "writer on w.xml"
grep -q 'cross' w.err || fail "no warning about the crossing Chunk: $(cat w.err)"
grep -q "'bad name'.*not an XML element name" w.err || fail "no warning about the bad name"
grep -q "'9x'.*not an XML attribute name" w.err || fail "no warning about the bad attribute"
grep -q '<Sentence><Entity type="PER" conf="0.5">John Smith</Entity> lives in <Entity type="LOC"><Mark/><Entity type="LOC">New York</Entity> City</Entity>.</Sentence>' w.out ||
    fail "nesting: $(cat w.out)"
grep -q 'Chunk' w.out && fail "the crossing Chunk was written"
# the Sentence spans the text but not the final newline-less end: it is the root
head -2 w.out | tail -1 | grep -q '^<Sentence>' || fail "the Sentence is not the root"
"$C" convert --from xml --to markup --writer-param sets= --writer-param types=Entity \
    --writer-param name-feature=type w.xml w2.out || fail "name-feature"
grep -q '<document><PER conf="0.5">John Smith</PER> lives in <LOC>New York City</LOC>.</document>' w2.out ||
    fail "name-feature=type: $(cat w2.out)"
"$C" convert --from xml --to markup --writer-param "types=Key/*,Sentence" w.xml w3.out || fail "SET/*"
grep -q '<Sentence>John Smith lives in <Entity type="LOC">New York</Entity> City.</Sentence>' w3.out ||
    fail "types=Key/*,Sentence: $(cat w3.out)"
# two documents: an error without corpus, one file with it
sed -e 's|</document>|</document><document id="d2" offsets="utf16"><text>Second \&amp; last.</text></document>|' w.xml >w2docs.xml
expect_fail 'second' "$C" -q convert --from xml --to markup w2docs.xml two.out
[ -e two.out ] && fail "a failed conversion left its output"
"$C" -q convert --from xml --to markup --writer-param corpus=docs w2docs.xml two.out || fail "corpus=docs"
grep -q '^<docs>$' two.out && grep -q '<document id="d2">Second &amp; last.</document>' two.out ||
    fail "corpus output: $(cat two.out)"
"$C" -q convert --from markup --to xml two.out two.back.xml || fail "corpus output does not read back"
# a character XML cannot carry: an error naming the document
printf '<?xml version="1.0"?>\n<corpus xmlns="urn:crfpipe:corpus:1"><document id="c"><text>a&#1;b</text></document></corpus>\n' >ctl.xml 2>/dev/null
if "$C" -q convert --from xml --to xml ctl.xml /dev/null 2>/dev/null; then
    expect_fail "document 'c'.*cannot carry" "$C" convert --from xml --to markup ctl.xml ctl.out
fi
expect_fail "parameter 'root'" "$C" convert --from xml --to markup --writer-param root=1x w.xml x.out

# --- HTML: entities, script and style left out, block elements break lines
cat >p.html <<'EOF'
<!DOCTYPE html>
<html lang="en"><head><meta charset="iso-8859-1"><title>A page</title>
<style>p { color: red }</style><script>var x = "<p>";</script></head>
<body><h1>Heading&nbsp;one</h1><p>First with <b>bold</b> text &eacute; caf&#233;.<p>Second, unclosed
<ul><li>one<li>two</ul>
<img src="x.png" alt="pic"><br>End</body></html>
EOF
"$C" convert --to xml p.html p.crf.xml || fail "html (by extension)"
annots p.crf.xml >p.ann
grep -q '|title|0|6|' p.ann || fail "title span: $(cat p.ann)"
grep -q '|b|' p.ann && grep -q '|li|' p.ann || fail "elements of the body"
grep -q '|script|\||style|' p.ann && fail "script or style annotated"
grep -q 'color: red\|var x' p.crf.xml && fail "script or style text kept"
grep -q 'First with bold text é café' p.crf.xml || fail "HTML entities"
grep -q "Heading$(printf '\302\240')one" p.crf.xml || fail "&nbsp; is U+00A0"
grep -q '|img|[0-9]*|[0-9]*|<f name="src">x.png</f>;<f name="alt">pic</f>;' p.ann || fail "img attributes"
# the same file without its extension: found by content
cp p.html page
"$C" convert --to xml page page.crf.xml || fail "html by content"
cmp -s p.crf.xml page.crf.xml 2>/dev/null || [ "$(annots page.crf.xml)" = "$(annots p.crf.xml)" ] ||
    fail "html by content differs"
# breaks="" and skip="": the character data only
"$C" convert --to xml --reader-param breaks= --reader-param skip= p.html p2.crf.xml
grep -q 'var x' p2.crf.xml || fail "skip= keeps script text"
printf '<p>caf\351</p>\n' >latin1.html
expect_fail 'latin1.html:1:.*not UTF-8' "$C" convert --to xml latin1.html x.xml

# --- comments and processing instructions come back where they stood
printf '<?xml version="1.0" encoding="UTF-8"?>\n<!-- head --><?style href="a.css"?><doc>a <!-- in --> b<?pi x?><e/></doc>\n' >cm.xml
"$C" convert --from markup --to markup cm.xml cm.out || fail "comments"
cmp -s cm.xml cm.out || { fail "comments or instructions changed"; cat cm.out >&2; }
"$C" convert --from markup --to markup --reader-param comments=false cm.xml cm2.out
grep -q '<!--\|<?style' cm2.out && fail "comments=false kept them"
# the DOCTYPE's name and ids come back (its internal subset does not)
printf '<?xml version="1.0"?>\n<!DOCTYPE d PUBLIC "-//X//DTD d//EN" "http://192.0.2.1/d.dtd" [<!ELEMENT d (#PCDATA)>]>\n<d>x</d>\n' >dt.xml
"$C" convert --from markup --to markup dt.xml dt1.out && "$C" convert --from markup --to markup dt1.out dt2.out ||
    fail "a DOCTYPE"
grep -q '^<!DOCTYPE d PUBLIC "-//X//DTD d//EN" "http://192.0.2.1/d.dtd">$' dt1.out && cmp -s dt1.out dt2.out ||
    fail "the DOCTYPE: $(cat dt1.out)"
printf '<!DOCTYPE html>\n<html><body><p>x</p></body></html>\n' >dt.html
"$C" convert --to markup --writer-param html=true dt.html dth.out
grep -q '^<!DOCTYPE html>$' dth.out || fail "<!DOCTYPE html>: $(cat dth.out)"
printf '<html><body><p>x<!-- a -- b --></p></body></html>\n' >badc.html
"$C" convert --to markup badc.html badc.out 2>badc.err || fail "a comment holding --"
grep -q "#comment annotation .* cannot be written as one" badc.err || fail "no warning: $(cat badc.err)"
# --- an HTML page written out reads back (as HTML) to the same text and
# bytes: the breaks the first reading put in are found again, empty
# raw-text elements are written <title></title>, html=true writes <p></p>
"$C" -q convert --to markup p.html p1.out && "$C" -q convert --from html --to markup p1.out p2.out ||
    fail "HTML written and read again"
cmp -s p1.out p2.out || { fail "an HTML page read again changed"; diff p1.out p2.out >&2; }
printf '<html><head><title></title></head><body><p></p>x<br/>y</body></html>' >e.html
"$C" -q convert --to markup e.html e1.out && "$C" -q convert --to markup --writer-param html=true e.html e2.out
grep -q '<title></title>' e1.out && grep -q '<p/>' e1.out || fail "empty elements: $(cat e1.out)"
grep -q '<p></p>x' e2.out && grep -q '<br/>' e2.out || fail "html=true: $(cat e2.out)"

# --- any other XML named .xml: crfpipe's reader says where to look
expect_fail "not a crfpipe XML corpus: its root is <doc>" "$C" convert --to xml a.xml x.xml

# --- hostile input: no entity is expanded, nothing is fetched, limits hold
printf '<?xml version="1.0"?>\n<!DOCTYPE l [\n <!ENTITY a "aaaaaaaaaa">\n <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\n]>\n<l>&b;</l>\n' >laughs.xml
expect_fail "laughs.xml:3:.*declares the entity 'a'" "$C" convert --from markup --to xml laughs.xml x.xml
printf '<?xml version="1.0"?>\n<!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<d>&xxe;</d>\n' >xxe.xml
expect_fail "declares the entity 'xxe'" "$C" convert --from markup --to xml xxe.xml x.xml
printf '<?xml version="1.0"?>\n<!DOCTYPE d SYSTEM "http://192.0.2.1/x.dtd">\n<d>a &nbsp; b</d>\n' >ext.xml
expect_fail "ext.xml:3:.*'&nbsp;'" "$C" convert --from markup --to xml ext.xml x.xml
printf '<d>\n<e>a</f>\n</d>\n' >nwf.xml
expect_fail "nwf.xml:2:" "$C" convert --from markup --to xml nwf.xml x.xml
: >empty.xml
expect_fail "empty.xml: the input is empty" "$C" convert --from markup --to xml empty.xml x.xml
printf '<?xml version="1.0" encoding="UTF-16"?>\n<d>x</d>\n' >u16.xml
expect_fail "u16.xml:1:.*UTF-16" "$C" convert --from markup --to xml u16.xml x.xml
printf '<?xml version="1.0" encoding="ISO-2022-JP"?>\n<d>\033$B\377\376</d>\n' >jis.xml
expect_fail "jis.xml:2: the bytes are not in the encoding the file declares" "$C" convert \
    --from markup --to xml jis.xml x.xml
grep -q "encoding error" "$tmp/err" && fail "libxml2's own message on stderr: $(cat "$tmp/err")"
printf '<d>a\n\377</d>\n' >bad8.xml
expect_fail "bad8.xml:2:" "$C" convert --from markup --to xml bad8.xml x.xml
awk 'BEGIN { printf "<d>"; for (i = 0; i < 3000; i++) printf "<e/>"; print "</d>" }' >many.xml
expect_fail "more than 1000 elements.*max-elements" "$C" convert --from markup --to xml \
    --reader-param max-elements=1000 many.xml x.xml
expect_fail "over 100 bytes.*max-bytes" "$C" convert --from markup --to xml \
    --reader-param max-bytes=100 many.xml x.xml
"$C" -q convert --from markup --to xml many.xml x.xml || fail "3001 elements under the default limit"
# an HTML page nested 100000 deep: no recursion to overflow
awk 'BEGIN { printf "<html><body>"; for (i = 0; i < 100000; i++) printf "<div>"; printf "x"; for (i = 0; i < 100000; i++) printf "</div>"; print "</body></html>" }' >deep.html
"$C" -q convert --to markup deep.html deep.out || fail "deep HTML"

# --- a corpus in one file, one document per element, streamed: each
# document is made when its element ends; the writer's corpus output reads
# back the same, byte for byte (ids, metadata, an empty document)
cat >multi.xml <<'EOF2'
<?xml version="1.0" encoding="UTF-8"?>
<docs>
<doc id="a">Hello <b>world</b>.<br/></doc>
<doc id="multi.xml:2" lang="fr">Bonjour <i/>monde &amp; co.</doc>
<doc id="e"/>
</docs>
EOF2
"$C" convert --from markup --to markup --reader-param document=doc --writer-param corpus=docs \
    --writer-param root=doc multi.xml multi.out || fail "document=doc"
cmp -s multi.xml multi.out || { fail "the corpus changed in the round trip"; diff multi.xml multi.out >&2; }
"$C" convert --from markup --to xml --reader-param document=doc multi.xml multi.crf.xml
[ "$(grep -c '<document id=' multi.crf.xml)" -eq 3 ] || fail "not 3 documents"
grep -q '<f name="lang">fr</f>' multi.crf.xml || fail "the document element's attributes are not metadata"
# without an id attribute: FILE:N; text and elements between documents dropped
printf '<docs>x<doc>one</doc><junk>y</junk><doc>two</doc></docs>\n' >noid.xml
"$C" convert --from markup --to xml --reader-param document=doc noid.xml noid.crf.xml
grep -q 'id="noid.xml:2"' noid.crf.xml && ! grep -q 'junk\|>x<\|y<' noid.crf.xml ||
    fail "ids or what lies between documents: $(cat noid.crf.xml)"
expect_fail "no <article> element" "$C" convert --from markup --to xml --reader-param document=article \
    multi.xml x.xml
# max-bytes bounds each document in a stream, the whole input otherwise
awk 'BEGIN { print "<docs>"; for (i = 0; i < 3000; i++) printf "<doc>document %d</doc>\n", i; print "</docs>" }' >stream.xml
"$C" -q convert --from markup --to xml --reader-param document=doc --reader-param max-bytes=100 \
    stream.xml stream.crf.xml || fail "a stream of small documents under max-bytes=100"
[ "$(grep -c '<document id=' stream.crf.xml)" -eq 3000 ] || fail "not 3000 documents"
expect_fail "multi.xml:3: document 1 is over 5 bytes" "$C" convert --from markup --to xml --reader-param document=doc \
    --reader-param max-bytes=5 multi.xml x.xml
expect_fail "input is over 100 bytes" "$C" convert --from markup --to xml --reader-param max-bytes=100 \
    stream.xml x.xml

# --- crfpipe tag on raw text and on HTML: --tokenizer; without it, a
# warning that nothing was tagged
awk 'BEGIN { RS = ""; ORS = "\n\n" } NR <= 60' "$top_srcdir/samples/ner/train.conll" >wnut.conll
"$C" -q train --template "$top_srcdir/samples/ner/ner.tpl" --columns word,label --max-iter 5 \
    --model wnut.model wnut.conll || fail "train the CoNLL model"
echo "Apple and Google opened offices in London." >raw.txt
"$C" tag -m wnut.model --format text --to xml raw.txt >untok.xml 2>untok.err || fail "tag without tokenizer"
grep -q "no Token annotations.*--tokenizer icu_tokenizer" untok.err || fail "no warning: $(cat untok.err)"
"$C" tag -m wnut.model --format text --tokenizer icu_tokenizer --tokenizer-param locale=en --to xml \
    raw.txt >tok.xml 2>tok.err || fail "tag --tokenizer: $(cat tok.err)"
[ -s tok.err ] && fail "tag --tokenizer warns: $(cat tok.err)"
t=$(grep -c 'type="Token"' tok.xml); pr=$(grep -c '<f name="predicted">' tok.xml)
[ "$t" -eq 8 ] && [ "$pr" -eq 8 ] || fail "$t tokens, $pr tagged"
# the model's column word reads the token strings: the same labels as the
# column file of those tokens
printf 'Apple\nand\nGoogle\nopened\noffices\nin\nLondon\n.\n' >raw.conll
"$C" -q tag -m wnut.model --columns word raw.conll | awk 'NF { print $NF }' >want.lab
awk '/<f name="predicted">/ { sub(/.*<f name="predicted">/, ""); sub(/<.*/, ""); print }' tok.xml >got.lab
cmp -s want.lab got.lab || fail "tokenized tagging differs from the column file's: $(tr '\n' ' ' <got.lab)"
expect_fail "is a tagger, not a tokenizer" "$C" tag -m wnut.model --tokenizer viterbi raw.txt
expect_fail "needs --tokenizer" "$C" tag -m wnut.model --tokenizer-param locale=en raw.txt

# --- an inline-annotated corpus trains a tagger, whose output is the same
# inline form (samples/ner/train-inline.xml, tag-inline.xml): synthetic
# sentences, names and places in new combinations for the test
mkdir -p inl && cp "$top_srcdir/samples/ner/train-inline.xml" "$top_srcdir/samples/ner/tag-inline.xml" \
    "$top_srcdir/samples/ner/ner.tpl" inl/
gen() {
    awk -v seed="$1" -v n="$2" 'BEGIN {
        split("Alice Smith,Bob Jones,Carla Diaz,Dmitri Ivanov,Emma Brown,Farid Khan,Grace Lee,Hugo Martin", P, ",")
        split("Paris,Berlin,Madrid,Tokyo,Lima,Oslo,Cairo,Quito", L, ",")
        split("flew to,moved to,stayed in,wrote from,arrived in,left", V, ",")
        srand(seed); print "<texts>"
        for (i = 0; i < n; i++) {
            p = P[int(rand() * 8) + 1]; l = L[int(rand() * 8) + 1]; v = V[int(rand() * 6) + 1]
            if (rand() < 0.5) printf "<PER>%s</PER> %s <LOC>%s</LOC> on Monday.\n", p, v, l
            else printf "Yesterday <PER>%s</PER> %s <LOC>%s</LOC> with friends.\n", p, v, l
        }
        print "</texts>" }'
}
gen 7 80 >inl/train.xml
gen 11 20 >inl/gold.xml
sed 's/<[A-Z]*>//g; s/<\/[A-Z]*>//g' inl/gold.xml >inl/plain.xml
(cd inl && "$C" -q run train-inline.xml -i train.xml) || fail "train-inline.xml"
(cd inl && "$C" -q run tag-inline.xml -i plain.xml -o tagged.xml) || fail "tag-inline.xml"
same=$(grep -v "^<texts>$\|^</texts>$\|^<?xml" inl/tagged.xml | grep -c -x -F -f inl/gold.xml || true)
[ "$same" -ge 18 ] || { fail "only $same of 20 tagged lines equal the gold"; head -5 inl/tagged.xml >&2; }
# the same from the command line: train and tag --tokenizer, no pipeline file
(cd inl && "$C" -q train --format markup --tokenizer icu_tokenizer --tokenizer-param locale=en \
    --spans PER,LOC --span-set "Original markups" --template ner.tpl --model cli.model train.xml) ||
    fail "train --tokenizer"
(cd inl && "$C" -q tag -m cli.model --format markup --tokenizer icu_tokenizer --spans Entity \
    --span-feature type --to markup --writer-param "types=Original markups/*,Entity" \
    --writer-param name-feature=type --writer-param features=false -o cli-tagged.xml plain.xml) ||
    fail "tag --tokenizer on XML"
# and scored against the inline gold by their offsets (eval --spans)
(cd inl && "$C" eval -m cli.model --format markup --tokenizer icu_tokenizer --spans PER,LOC \
    --diff-param "key-set=Original markups" gold.xml >eval.txt) || fail "eval --tokenizer"
awk '$1 == "overall" && $2 + 0 >= 36 && $6 + 0 >= 90 { ok = 1 } END { exit !ok }' inl/eval.txt ||
    fail "eval of the inline model: $(cat inl/eval.txt)"
expect_fail "goes with --model and --spans" "$C" eval --tokenizer icu_tokenizer inl/gold.xml
cmp -s inl/tagged.xml inl/cli-tagged.xml || { fail "the command line tags otherwise than the pipelines"; diff inl/tagged.xml inl/cli-tagged.xml | head -5 >&2; }
finish
