#!/bin/sh
# Streaming (issue 8): column readers cut long documents into bounded
# batches, which must (1) round-trip byte for byte whatever the batch size,
# through the column writers and through XML; (2) tag in parallel exactly as
# in one thread, in input order; (3) keep memory bounded: a 14 MB corpus
# converts and tags under an address-space limit far below what holding it
# whole took (~430 bytes per token before batching, ~400 MB here).
. "$top_srcdir/tests/pipeline/common.sh"
cd "$tmp"

# --- a synthetic corpus with every layout the readers must keep --------------
# Deterministic words and tags (no shared data needed), -DOCSTART- blocks,
# runs of blank lines, odd spacing, a tab-separated and a CRLF variant, no
# final newline.
awk 'BEGIN {
    srand(8);
    split("the a cat dog sat on mat Zürich ran 𝄞 fast slow big red", W, " ");
    split("DT DT NN NN VBD IN NN NNP VBD SYM RB JJ JJ JJ", P, " ");
    for (d = 0; d < 3; d++) {
        print "-DOCSTART- -X- -X- O"; print "";
        for (s = 0; s < 120; s++) {
            n = 3 + int(rand() * 12);
            for (t = 0; t < n; t++) {
                k = 1 + int(rand() * 14);
                if (t == 1 && s % 17 == 3) printf "%s  %s\tB-NP \n", W[k], P[k];
                else printf "%s %s %s\n", W[k], P[k], (t == 0 ? "B-NP" : "I-NP");
            }
            print "";
            if (s % 29 == 5) print "";
        }
    }
}' > body.conll
{ cat body.conll; printf 'last NN B-NP\nline NN I-NP'; } > base.conll
tr ' ' '\t' < base.conll | sed 's/\t\t*/\t/g; s/\t$//' > tabs.conll
{ sed 's/$/\r/' body.conll; printf 'last NN B-NP\r\nline NN I-NP'; } > crlf.conll

same() { cmp -s "$1" "$2" || fail "$3: output differs from the input"; }
for f in base.conll tabs.conll crlf.conll; do
    for b in 1 300 4096 65536 0; do
        "$CRFPIPE" convert --from conll --to conll --reader-param batch-bytes=$b "$f" -o out.conll ||
            fail "convert $f batch-bytes=$b"
        same "$f" out.conll "$f conll -> conll, batch-bytes=$b"
        "$CRFPIPE" convert --from conll --to xml --reader-param batch-bytes=$b "$f" -o out.xml ||
            fail "convert $f to xml batch-bytes=$b"
        "$CRFPIPE" convert --from xml --to conll out.xml -o back.conll || fail "xml -> conll"
        same "$f" back.conll "$f conll -> xml -> conll, batch-bytes=$b"
    done
done
# Small batches really are many documents: d1, d1.2, ... then d2.
"$CRFPIPE" convert --from conll --to xml --reader-param batch-bytes=300 base.conll -o out.xml
n=$(grep -c '<document ' out.xml)
[ "$n" -gt 30 ] || fail "batch-bytes=300 gave $n documents"
grep -q '<document id="d1.2"' out.xml || fail "no continuation document d1.2"
grep -q '<document id="d2"' out.xml || fail "no second -DOCSTART- document d2"

pos="$top_srcdir/samples/pos"
for b in 1 2000 0; do
    "$CRFPIPE" convert --from conllu --to conllu --reader-param batch-bytes=$b "$pos/test.conllu" \
        -o out.conllu || fail "conllu batch-bytes=$b"
    same "$pos/test.conllu" out.conllu "conllu -> conllu, batch-bytes=$b"
    "$CRFPIPE" convert --from conllu --to xml --reader-param batch-bytes=$b "$pos/test.conllu" \
        -o out.xml && "$CRFPIPE" convert --from xml --to conllu out.xml -o back.conllu ||
        fail "conllu through xml, batch-bytes=$b"
    same "$pos/test.conllu" back.conllu "conllu -> xml -> conllu, batch-bytes=$b"
done

# --- parallel tagging: same bytes as one thread, in input order ----------------
"$CRFPIPE" --quiet train --template "$top_srcdir/tests/pipeline/tiny.tpl" \
    --columns form,pos,chunk --max-iter 20 --model m.model base.conll || fail "train"
for t in 1 3; do
    "$CRFPIPE" tag --threads $t --model m.model --columns form,pos,chunk base.conll \
        -o tag$t.conll || fail "tag --threads $t"
done
same tag1.conll tag3.conll "tag --threads 3 vs 1"
cat > pipe.xml <<EOF
<pipeline xmlns="urn:crfpipe:pipeline:1">
  <stage plugin="conll_reader">
    <param name="columns" value="form,pos,chunk"/>
    <param name="batch-bytes" value="200"/>
  </stage>
  <stage plugin="viterbi"><param name="model" value="m.model"/></stage>
  <stage plugin="conll_writer"/>
</pipeline>
EOF
for t in 1 2 4; do
    "$CRFPIPE" run --threads $t pipe.xml -i base.conll -o run$t.conll || fail "run --threads $t"
    same tag1.conll run$t.conll "run --threads $t with 200-byte batches vs tag"
done
# An error in a later batch is the one reported, and nothing is written.
{ cat base.conll; printf '\n\nbad line with four\n'; } > bad.conll
expect_fail 'bad.conll:.*4 fields' "$CRFPIPE" run --threads 2 pipe.xml -i bad.conll -o badout.conll
[ -e badout.conll ] && fail "output left behind after a failed parallel run"

# --- bounded memory ---------------------------------------------------------------
# 14 MB of input, ~1M tokens.  AddressSanitizer cannot start under
# ulimit -v: that part is for the ordinary build.
if ( ulimit -v 100000 && exec "$CRFPIPE" --version ) 2>&1 | grep -q Sanitizer; then
    finish
fi
i=0
# One logical document, like CoNLL-2000's files: no -DOCSTART- lines.
grep -v DOCSTART body.conll > nodoc.conll
while [ $i -lt 300 ]; do cat nodoc.conll; i=$((i + 1)); done > big.conll
limit=100000   # KiB of address space, libraries and thread stacks included
lim() { ( ulimit -v $limit && exec "$@" ); }
lim "$CRFPIPE" convert --from conll --to conll big.conll -o big.out || fail "conll -> conll over 100 MB"
same big.conll big.out "big conll -> conll"
lim "$CRFPIPE" convert --from conll --to xml big.conll -o big.xml || fail "conll -> xml over 100 MB"
lim "$CRFPIPE" convert --from xml --to conll big.xml -o big.back || fail "xml -> conll over 100 MB"
same big.conll big.back "big conll -> xml -> conll"
lim "$CRFPIPE" tag --threads 1 --model m.model --columns form,pos,chunk big.conll -o big.tag ||
    fail "tag over 100 MB"
[ "$(wc -l < big.tag)" = "$(wc -l < big.conll)" ] || fail "big tag: line count"
finish
