#!/bin/bash
# Any XML as a corpus (markup_reader document=doc, markup_writer corpus):
# throughput and peak memory of reading and writing an XML corpus of
# SIZE MB, and of tagging it with UPOS end to end (tokenizer, tagger, the
# tags written inline), so that the memory of one document, not of the
# corpus, is seen.  The corpus is made of the sentences of the shipped EWT
# excerpt (CC BY-SA 4.0: samples/pos), ten paragraphs per document, in a
# temporary directory removed at exit.
#
# Usage: bench/markup.sh                  (make bench-markup)
# Environment: SIZE=100 (MB of XML), THREADS=2, MODEL=path (a UPOS model
# trained on columns form..upos; default: trained here on samples/pos in
# a few seconds, 50 iterations).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
CRFPIPE=${CRFPIPE:-$here/core/crfpipe}
SIZE=${SIZE:-100}
THREADS=${THREADS:-2}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crfpipe-markup.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pos=$here/samples/pos

model=${MODEL:-$tmp/pos.model}
if [ ! -f "$model" ]; then
    "$CRFPIPE" -q train --template "$pos/pos.tpl" --label upos --max-iter 50 --model "$model" \
        "$pos/train.conllu"
fi

# the corpus: <docs><doc id="dN"><p>sentence</p> x 10</doc>...</docs>
awk -v size="$SIZE" '
    /^# text = / { s = substr($0, 10); gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); S[n++] = s }
    END {
        srand(3); print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"; print "<docs>"
        total = 0; d = 0
        while (total < size * 1000000) {
            d++; line = "<doc id=\"d" d "\">\n"
            for (k = 0; k < 10; k++) line = line "<p>" S[int(rand() * n)] "</p>\n"
            line = line "</doc>"; print line; total += length(line) + 1
        }
        print "</docs>"
    }' "$pos/test.conllu" "$pos/dev.conllu" >"$tmp/corpus.xml"
cat >"$tmp/tag.xml" <<EOF
<pipeline xmlns="urn:crfpipe:pipeline:1" name="pos-xml-corpus">
  <stage plugin="markup_reader"><param name="document" value="doc"/></stage>
  <stage plugin="icu_tokenizer"><param name="locale" value="en"/></stage>
  <stage plugin="viterbi">
    <param name="model" value="$model"/>
    <param name="input-columns" value="form=string"/>
    <param name="output" value="upos"/>
    <param name="threads" value="$THREADS"/>
  </stage>
  <stage plugin="markup_writer">
    <param name="corpus" value="docs"/><param name="root" value="doc"/>
    <param name="types" value="Original markups/*,Token"/>
  </stage>
</pipeline>
EOF
mb() { echo "scale=1; $(stat -c %s "$1") / 1000000" | bc; }
# run NAME CMD...: one row: seconds, peak RSS
run() {
    local name=$1
    shift
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$@"
    read -r sec kb <"$tmp/time"
    printf '%-44s %8s s %8.1f MB\n' "$name" "$sec" "$(echo "scale=1; $kb / 1024" | bc)"
}
docs=$(grep -c '^<doc ' "$tmp/corpus.xml")
echo "XML corpus: $(mb "$tmp/corpus.xml") MB, $docs documents (EWT sentences, 10 paragraphs each)"
printf '%-44s %10s %11s\n' "" "time" "peak RSS"
run "read + write inline (document=doc)" "$CRFPIPE" -q convert --from markup --reader-param document=doc \
    --to markup --writer-param corpus=docs --writer-param root=doc "$tmp/corpus.xml" "$tmp/copy.xml"
cmp -s "$tmp/corpus.xml" "$tmp/copy.xml" && echo "  the copy is the corpus, byte for byte" ||
    echo "  THE COPY DIFFERS"
rm -f "$tmp/copy.xml"
run "read -> crfpipe XML" "$CRFPIPE" -q convert --from markup --reader-param document=doc --to xml \
    "$tmp/corpus.xml" "$tmp/corpus.crf.xml"
echo "  crfpipe XML: $(mb "$tmp/corpus.crf.xml") MB"
rm -f "$tmp/corpus.crf.xml"
run "tokenize + UPOS-tag, tags inline ($THREADS threads)" "$CRFPIPE" -q run "$tmp/tag.xml" \
    -i "$tmp/corpus.xml" -o "$tmp/tagged.xml"
sec=$(cut -d' ' -f1 "$tmp/time")
tokens=$(grep -o '<Token ' "$tmp/tagged.xml" | wc -l)
echo "  $tokens tokens: $(echo "$tokens / $sec" | bc) tokens/s; output $(mb "$tmp/tagged.xml") MB"
run "the tagged corpus read + written again" "$CRFPIPE" -q convert --from markup \
    --reader-param document=doc --to markup --writer-param corpus=docs --writer-param root=doc \
    "$tmp/tagged.xml" "$tmp/again.xml"
cmp -s "$tmp/tagged.xml" "$tmp/again.xml" && echo "  the same bytes" || echo "  IT DIFFERS"
