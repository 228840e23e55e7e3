#!/bin/sh
# `crfpipe run` from raw text streams: with one document per paragraph, the
# peak memory of reading, tokenizing and writing XML does not grow with the
# input (0.7 MB and 7 MB of text: the larger run may use at most 16 MB
# more, while holding it all as documents would take over a hundred).
. "$top_srcdir/tests/pipeline/common.sh"
[ -x /usr/bin/time ] || { echo "no /usr/bin/time: skipped"; exit 77; }
cat >"$tmp/p.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<pipeline xmlns="urn:crfpipe:pipeline:1" name="stream">
  <stage plugin="text_reader"><param name="split" value="paragraph"/></stage>
  <stage plugin="icu_tokenizer"><param name="locale" value="en"/></stage>
  <stage plugin="xml_writer"/>
</pipeline>
XML
para='The quick brown fox jumps over the lazy dog, and Zoë reads “Les Misérables” at 10:30.
A second line of the same paragraph: 3.14, e-mail a@b.org, 😀!
'
awk -v p="$para" 'BEGIN { for (i = 0; i < 4000; i++) printf "%s\n", p }' >"$tmp/small.txt"
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$tmp/small.txt"; done >"$tmp/big.txt"
peak() {
    /usr/bin/time -f '%M' -o "$tmp/rss" "$CRFPIPE" run "$tmp/p.xml" -i "$1" >"$tmp/out.xml" ||
        fail "run on $1"
    tail -1 "$tmp/rss"
}
small=$(peak "$tmp/small.txt")
nsmall=$(grep -c '<document ' "$tmp/out.xml")
big=$(peak "$tmp/big.txt")
nbig=$(grep -c '<document ' "$tmp/out.xml")
echo "peak RSS: $small kB for $nsmall documents, $big kB for $nbig documents"
[ "$nbig" -eq $((10 * nsmall)) ] || fail "documents: $nsmall then $nbig"
# AddressSanitizer keeps freed blocks in quarantine (up to 256 MB), so peak
# memory grows with the input there whatever the program does: the bound
# is checked in the plain build only.
asan=0
for bin in "$top_builddir/core/.libs/lt-crfpipe" "$top_builddir/core/.libs/crfpipe"; do
    [ -f "$bin" ] && ldd "$bin" 2>/dev/null | grep -q 'libasan' && asan=1
done
if [ "$asan" = 0 ]; then
    [ "$big" -le $((small + 16384)) ] || fail "memory grows with the input: $small kB -> $big kB"
else
    echo "sanitizer build: the memory bound is checked in the plain build"
fi
finish
