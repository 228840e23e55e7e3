#!/bin/sh
# GATE XML interop: a GATE document (tests/text/annie.gate.xml, written for
# these tests) read with its sets, types, offsets and typed features; GATE →
# crfpipe XML → GATE preserves them; output valid against tests/text/gate.rng;
# documents crfpipe annotates (any offset unit) come out in UTF-16 nodes and
# read back unchanged, provenance included; bad input is refused by name.
. "$top_srcdir/tests/pipeline/common.sh"
fx="$top_srcdir/tests/text/annie.gate.xml"
rng="$top_srcdir/tests/text/gate.rng"

# --- GATE -> crfpipe: what was read
"$CRFPIPE" convert --from gate --to xml "$fx" "$tmp/a.xml" || fail "gate -> xml"
"$CRFPIPE" validate "$tmp/a.xml" >/dev/null || fail "converted GATE document is not valid"
grep -q '<a id="12" type="Token" start="22" end="24">' "$tmp/a.xml" || fail "emoji token at UTF-16 22..24"
grep -q '<a id="30" type="paragraph" start="0" end="35"/>' "$tmp/a.xml" ||
    fail "node ids that are not offsets: paragraph 0..35"
grep -q '<annotations set="Original markups">' "$tmp/a.xml" || fail "named set"
grep -q 'Málaga 😀&#13;' "$tmp/a.xml" || fail "text with its CR"
grep -q '<f name="confidence" type="float">0.875</f>' "$tmp/a.xml" || fail "Double feature"
grep -q '<f name="firstPass" type="bool">true</f>' "$tmp/a.xml" || fail "Boolean feature"
grep -q '<v type="int">21</v>' "$tmp/a.xml" || fail "ArrayList of Integer"
grep -q '<f name="rule">PersonFirst &amp; &quot;title&quot;</f>' "$tmp/a.xml" || fail "escaped string"
grep -q '<f name="gate.SourceURL">file:/tmp/visit.txt</f>' "$tmp/a.xml" || fail "document feature"

# --- round trip GATE -> crfpipe -> GATE -> crfpipe: the same document
"$CRFPIPE" convert --from xml --to gate "$tmp/a.xml" "$tmp/b.gate.xml" || fail "xml -> gate"
"$CRFPIPE" convert --to xml --reader-param id=annie.gate.xml "$tmp/b.gate.xml" "$tmp/c.xml" ||
    fail "gate (by extension) -> xml"
cmp -s "$tmp/a.xml" "$tmp/c.xml" || { diff "$tmp/a.xml" "$tmp/c.xml" | head; fail "round trip differs"; }
# and GATE -> GATE is stable once written by crfpipe
"$CRFPIPE" convert --from gate --to gate "$tmp/b.gate.xml" "$tmp/d.gate.xml" || fail "gate -> gate"
cmp -s "$tmp/b.gate.xml" "$tmp/d.gate.xml" || fail "gate -> gate not stable"
# content sniffing: a GATE document under another name
cp "$tmp/b.gate.xml" "$tmp/doc.data"
"$CRFPIPE" convert --to xml "$tmp/doc.data" "$tmp/e.xml" 2>"$tmp/err" || { cat "$tmp/err"; fail "sniffed"; }
grep -q 'type="Person"' "$tmp/e.xml" || fail "sniffed GATE content"
if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout --relaxng "$rng" "$fx" "$tmp/b.gate.xml" 2>"$tmp/err" ||
        { cat "$tmp/err"; fail "GATE output not valid against gate.rng"; }
else
    echo "xmllint not installed: schema check of the GATE output skipped"
fi

# --- crfpipe-annotated text -> GATE: offsets from any unit, provenance
printf 'Zoë’s café 😀 — naïve?\r\nSecond: x=1;y=2.\n' >"$tmp/in.txt"
for unit in utf16 codepoint byte; do
    cat >"$tmp/p-$unit.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<pipeline xmlns="urn:crfpipe:pipeline:1" name="t">
  <stage plugin="text_reader"><param name="offsets" value="$unit"/></stage>
  <stage plugin="icu_tokenizer"><param name="locale" value="en"/></stage>
  <stage plugin="gate_writer"/>
</pipeline>
XML
    "$CRFPIPE" run "$tmp/p-$unit.xml" -i "$tmp/in.txt" -o "$tmp/t-$unit.gate.xml" ||
        fail "text -> GATE ($unit)"
done
cmp -s "$tmp/t-utf16.gate.xml" "$tmp/t-byte.gate.xml" && cmp -s "$tmp/t-utf16.gate.xml" "$tmp/t-codepoint.gate.xml" ||
    fail "GATE nodes depend on the document's offset unit"
grep -q '<Node id="13"/>' "$tmp/t-utf16.gate.xml" || fail "UTF-16 node after the emoji"
grep -q 'crfpipe.processor.1' "$tmp/t-utf16.gate.xml" || fail "provenance as a document feature"
sed 's/gate_writer/xml_writer/' "$tmp/p-utf16.xml" >"$tmp/p-xml.xml"
"$CRFPIPE" run "$tmp/p-xml.xml" -i "$tmp/in.txt" -o "$tmp/direct.xml" || fail "text -> xml"
"$CRFPIPE" convert --from gate --to xml --reader-param id=in.txt "$tmp/t-utf16.gate.xml" "$tmp/back.xml" ||
    fail "GATE -> xml"
cmp -s "$tmp/direct.xml" "$tmp/back.xml" ||
    { diff "$tmp/direct.xml" "$tmp/back.xml" | head -20; fail "text -> GATE -> xml differs from text -> xml"; }
if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout --relaxng "$rng" "$tmp/t-utf16.gate.xml" 2>/dev/null || fail "annotated text: invalid GATE"
fi

# --- a list whose items are not all of its itemClassName: kept as strings
# (not a mix of types, which GATE's format cannot hold, so that writing it
# back would have flattened it into one string; found by fuzz_gate)
printf '<GateDocument><TextWithNodes><Node id="0"/>ab<Node id="2"/></TextWithNodes>\n<AnnotationSet><Annotation Id="1" Type="T" StartNode="0" EndNode="2"><Feature><Name>m</Name><Value className="java.util.ArrayList" itemClassName="java.lang.Integer">20;2x</Value></Feature></Annotation></AnnotationSet></GateDocument>\n' >"$tmp/mixed.xml"
"$CRFPIPE" convert --from gate --to xml "$tmp/mixed.xml" "$tmp/mixed.out.xml" 2>"$tmp/err" ||
    fail "list with a bad item"
grep -q "mixed.xml:2: feature 'm': an item is not of its itemClassName java.lang.Integer" "$tmp/err" ||
    { cat "$tmp/err"; fail "warning for the bad item"; }
grep -q '<v>20</v>' "$tmp/mixed.out.xml" && grep -q '<v>2x</v>' "$tmp/mixed.out.xml" ||
    { cat "$tmp/mixed.out.xml"; fail "items kept as strings"; }
"$CRFPIPE" convert --from gate --to gate "$tmp/mixed.xml" "$tmp/mixed.gate.xml" 2>"$tmp/err" &&
    ! grep -q "cannot hold" "$tmp/err" || { cat "$tmp/err"; fail "list written back whole"; }
grep -q 'itemClassName="java.lang.String">20;2x</Value>' "$tmp/mixed.gate.xml" ||
    fail "list of strings in GATE"

# --- the sets keep their order (found by fuzz_gate: the default set was
# written first, so a file with it after a named set came back reordered)
printf '<GateDocument><TextWithNodes><Node id="0"/>ab<Node id="2"/></TextWithNodes>\n<AnnotationSet Name="Key"><Annotation Id="1" Type="T" StartNode="0" EndNode="2"/></AnnotationSet>\n<AnnotationSet><Annotation Id="2" Type="U" StartNode="0" EndNode="2"/></AnnotationSet></GateDocument>\n' >"$tmp/order.xml"
"$CRFPIPE" convert --from gate --to gate "$tmp/order.xml" "$tmp/order.gate.xml" || fail "set order"
grep -n 'AnnotationSet' "$tmp/order.gate.xml" | grep -v '</' | head -1 | grep -q 'Name="Key"' ||
    { cat "$tmp/order.gate.xml"; fail "the named set first, as in the input"; }

# --- non-finite Doubles are written as Java writes and reads them
printf '<GateDocument><TextWithNodes><Node id="0"/>ab<Node id="2"/></TextWithNodes>\n<AnnotationSet><Annotation Id="1" Type="T" StartNode="0" EndNode="2"><Feature><Name>x</Name><Value className="java.lang.Double">NaN</Value></Feature><Feature><Name>y</Name><Value className="java.lang.Double">-Infinity</Value></Feature><Feature><Name>z</Name><Value className="java.lang.Double">1e400</Value></Feature></Annotation></AnnotationSet></GateDocument>\n' >"$tmp/inf.xml"
"$CRFPIPE" convert --from gate --to gate "$tmp/inf.xml" "$tmp/inf.gate.xml" || fail "non-finite Doubles"
for v in NaN -Infinity Infinity; do
    grep -q "className=\"java.lang.Double\">$v</Value>" "$tmp/inf.gate.xml" || fail "Double $v as Java writes it"
done

# --- bad input
printf '<?xml version="1.0"?>\n<!DOCTYPE GateDocument [<!ENTITY a "aaaa">]>\n<GateDocument/>\n' >"$tmp/dtd.xml"
expect_fail "DOCTYPE is not allowed" "$CRFPIPE" convert --from gate --to xml "$tmp/dtd.xml"
printf '<GateDocument><TextWithNodes>ab<Node id="0"/></TextWithNodes>\n<AnnotationSet><Annotation Id="1" Type="T" StartNode="0" EndNode="7"/></AnnotationSet></GateDocument>\n' >"$tmp/node.xml"
expect_fail "node.xml:2: .*end node 7 is not in TextWithNodes" "$CRFPIPE" convert --from gate --to xml "$tmp/node.xml"
printf '<GateDocument><TextWithNodes><Node id="0"/>ab<Node id="0"/></TextWithNodes></GateDocument>\n' >"$tmp/twice.xml"
expect_fail "twice.xml:1: node id 0 stands at two offsets in TextWithNodes (UTF-16 0 and 2)" \
    "$CRFPIPE" convert --from gate --to xml "$tmp/twice.xml"
printf '<GateDocument><TextWithNodes>ab<Node id="0"/><b/></TextWithNodes></GateDocument>\n' >"$tmp/elem.xml"
expect_fail "elem.xml:1: element <b> inside TextWithNodes" "$CRFPIPE" convert --from gate --to xml "$tmp/elem.xml"
printf '<GateDocument><TextWithNodes>ab</TextWithNodes>\n<AnnotationSet><Annotation Id="x" Type="T" StartNode="0" EndNode="0"/>' >"$tmp/trunc.xml"
expect_fail "trunc.xml:2" "$CRFPIPE" convert --from gate --to xml "$tmp/trunc.xml"
expect_fail "not <GateDocument>.*crfpipe corpus" "$CRFPIPE" convert --from gate --to xml "$tmp/a.xml"
printf 'one\ntwo\n' >"$tmp/two.txt"
expect_fail "holds one document and this is the second" \
    "$CRFPIPE" convert --from text --to gate --reader-param split=line "$tmp/two.txt"
printf 'bell \007 here\n' >"$tmp/bell.txt"
expect_fail "XML 1.0 cannot carry" "$CRFPIPE" convert --from text --to gate "$tmp/bell.txt"
finish
