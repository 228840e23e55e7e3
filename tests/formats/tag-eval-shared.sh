# tag then eval against eval --model on the shared corpora (UD EWT and
# CoNLL-2000, read from $CRFP_SHARED_DATA, never copied into the tree).
# Skips when they are absent.
. "$top_srcdir/tests/formats/common.sh"
D=${CRFP_SHARED_DATA:-/nonexistent}
ewt=$D/ud_english_ewt
c2k=$D/conll2000
if [ ! -r "$ewt/en_ewt-ud-test.conllu" ] || [ ! -r "$c2k/test.txt" ]; then
    echo "shared data not found under $D: skipping" >&2
    exit 77
fi
# Small training slices keep the test quick; the scores only have to agree.
awk 'BEGIN{RS=""; ORS="\n\n"} NR<=300' "$ewt/en_ewt-ud-train.conllu" > "$tmp/ewt-train.conllu"
train "$tmp/ewt.model" "$top_srcdir/tests/pipeline/tiny.tpl" --label upos "$tmp/ewt-train.conllu"
tag_then_eval "$tmp/ewt.model" "$ewt/en_ewt-ud-test.conllu" "$tmp/ewt-out.conllu"
"$CRFPIPE" --quiet convert --from conllu --to xml "$ewt/en_ewt-ud-dev.conllu" "$tmp/dev.xml" \
    || fail "convert EWT dev to XML"
tag_then_eval "$tmp/ewt.model" "$tmp/dev.xml" "$tmp/ewt-out.xml"
# Real treebank MISC values hold spaces: tagging into space-separated
# columns must not die part-way.
"$CRFPIPE" --quiet tag --model "$tmp/ewt.model" --to conll "$ewt/en_ewt-ud-test.conllu" \
    > "$tmp/ewt-out.conll" || fail "tag --to conll on EWT test"

awk 'BEGIN{RS=""; ORS="\n\n"} NR<=1000' "$c2k/train.txt" > "$tmp/c2k-train.txt"
train "$tmp/c2k.model" "$top_srcdir/samples/chunking/chunking.tpl" --columns word,pos,chunk \
    "$tmp/c2k-train.txt"
cp "$c2k/test.txt" "$tmp/test.conll"
tag_then_eval "$tmp/c2k.model" "$tmp/test.conll" "$tmp/c2k-out.conll"
tag_then_eval "$tmp/c2k.model" "$c2k/test.txt" "$tmp/c2k-out.txt"
finish
