# Hostile XML: entity expansion (billion laughs) in an attribute, nodes over
# the xml-node limit, and `validate` accepting only what the reader accepts.
. "$top_srcdir/tests/hostile/common.sh"

lol() {
    printf '<?xml version="1.0"?>\n<!DOCTYPE corpus [\n<!ENTITY lol "lol">\n'
    prev=lol
    for i in 1 2 3 4 5 6 7 8 9; do
        printf '<!ENTITY lol%s "' "$i"
        for k in 0 1 2 3 4 5 6 7 8 9; do printf '&%s;' "$prev"; done
        printf '">\n'
        prev=lol$i
    done
    printf ']>\n<corpus xmlns="urn:crfpipe:corpus:1"><document id="&lol9;"><text>a</text></document></corpus>\n'
}
lol > lol.xml
run 10 1 'lol.xml:2: a DOCTYPE is not allowed' convert --from xml --to xml lol.xml -o out.xml
[ -e out.xml ] && fail "convert left out.xml behind"
run 10 1 'lol.xml:2: a DOCTYPE is not allowed' validate lol.xml
run 10 1 'lol.xml:2: a DOCTYPE is not allowed' train --template "$top_srcdir/tests/pipeline/tiny.tpl" \
    --format xml --model m.model lol.xml
printf '<pipeline xmlns="urn:crfpipe:pipeline:1">\n<stage plugin="xml_reader"/>\n<stage plugin="xml_writer"/>\n</pipeline>\n' > pipe.xml
run 10 0 '' validate pipe.xml
run 10 1 'lol.xml:2: a DOCTYPE is not allowed' run pipe.xml -i lol.xml -o out.xml

# An attribute and a text node over libxml2's own 10 MB: refused at once,
# naming the limit and how to raise it; raised, the text is accepted.
head -c 12000000 /dev/zero | tr '\0' a > a12m
{ printf '<corpus xmlns="urn:crfpipe:corpus:1"><document id="'; cat a12m
  printf '"><text>a</text></document></corpus>\n'; } > bigattr.xml
run 20 1 'exceeds the limit xml-node=10000000 .*--limit xml-node=' convert --from xml --to xml bigattr.xml -o out.xml
run 20 1 'exceeds the limit xml-node=10000000' validate bigattr.xml
{ printf '<corpus xmlns="urn:crfpipe:corpus:1"><document id="x"><text>'; cat a12m
  printf '</text></document></corpus>\n'; } > bigtext.xml
run 20 1 'exceeds the limit xml-node=10000000' convert --from xml --to xml bigtext.xml -o out.xml
run 30 0 '' --limit xml-node=20M convert --from xml --to xml bigtext.xml -o out.xml
[ "$(wc -c < out.xml)" -gt 12000000 ] || fail "the raised limit did not let the text through"
rm -f a12m bigattr.xml bigtext.xml out.xml

# A smaller limit applies to attributes and text alike.
printf '<corpus xmlns="urn:crfpipe:corpus:1">\n<document id="%s"><text>abc</text></document></corpus>\n' \
    "$(head -c 2000 /dev/zero | tr '\0' a)" > midattr.xml
run 10 1 "midattr.xml:2: attribute 'id' of <document> of 2000 bytes exceeds the limit xml-node=1000" \
    --limit xml-node=1000 convert --from xml --to xml midattr.xml -o out.xml
CRFPIPE_LIMITS=xml-node=1k run 10 1 'xml-node=1024' convert --from xml --to xml midattr.xml -o out.xml
run 10 0 '' convert --from xml --to xml midattr.xml -o out.xml
run 10 2 'not NAME=VALUE' --limit xml-nodes=1 plugins

# validate runs the reader's checks: what it accepts, the reader accepts.
doc() { printf '<corpus xmlns="urn:crfpipe:corpus:1">\n  <document id="s1"%s><text>%s</text><annotations>%s</annotations></document>\n</corpus>\n' "$@"; }
doc '' 'abc' '<a id="0" type="T" start="0" end="9"/>' > range.xml
doc '' 'abc' '<a id="0" type="T" start="2" end="1"/>' > reversed.xml
doc ' offsets="byte"' 'é' '<a id="0" type="T" start="0" end="1"/>' > midchar.xml
doc '' 'abc' '<a id="0" type="T" start="0" end="1"/><a id="0" type="T" start="1" end="2"/>' > dupid.xml
printf '<?xml version="1.0"?>\n<!DOCTYPE corpus>\n<corpus xmlns="urn:crfpipe:corpus:1"/>\n' > doctype.xml
for f in range reversed midchar dupid doctype; do
    run 10 1 "^$f.xml:2: " validate $f.xml
    grep -q "^$f.xml: invalid" out || fail "validate $f.xml did not print 'invalid'"
    run 10 1 "$f.xml:2: " convert --from xml --to xml $f.xml -o out.xml
done
run 10 0 '' validate "$top_srcdir/tests/doc/valid.xml"

# Bytes that are not in the encoding a file declares: each XML reader says
# so, naming the line, and libxml2 prints nothing of its own on stderr.
for f in 'xml:<corpus xmlns="urn:crfpipe:corpus:1">:</corpus>' 'gate:<GateDocument>:</GateDocument>' \
    'markup:<d>:</d>'; do
    fmt=${f%%:*} rest=${f#*:}
    printf '<?xml version="1.0" encoding="ISO-2022-JP"?>\n%s\033$B\377\376%s\n' "${rest%%:*}" \
        "${rest#*:}" > enc-$fmt.xml
    run 10 1 "enc-$fmt.xml:2: the bytes are not in the encoding the file declares" \
        convert --from $fmt --to xml enc-$fmt.xml -o out.xml
    grep -q 'encoding error\|encoder error' "$work/err" && fail "$fmt: libxml2's own lines: $(cat "$work/err")"
done
exit 0
