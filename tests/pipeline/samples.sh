#!/bin/sh
# The shipped sample pipelines are valid and the POS one runs end to end
# (on a copy, so that the source tree is never written to).
. "$top_srcdir/tests/pipeline/common.sh"
for f in "$top_srcdir"/samples/*/*.xml; do
    "$CRFPIPE" validate "$f" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; fail "invalid sample $f"; }
done
cp -r "$top_srcdir/samples/pos" "$tmp/pos"
chmod -R u+w "$tmp/pos"
( cd "$tmp/pos" && "$CRFPIPE" --quiet run train.xml -i train.conllu ) || fail "samples/pos/train.xml"
( cd "$tmp/pos" && "$CRFPIPE" run eval.xml -i test.conllu ) >"$tmp/eval.txt" || fail "samples/pos/eval.xml"
acc=$(sed -n 's/^token accuracy: *\([0-9.]*\)%.*/\1/p' "$tmp/eval.txt")
echo "POS sample token accuracy: $acc%"
awk -v a="$acc" 'BEGIN { exit !(a >= 85) }' || fail "POS sample accuracy $acc% below 85%"
( cd "$tmp/pos" && "$CRFPIPE" run tag.xml -i test.conllu -o "$tmp/tagged.xml" ) || fail "samples/pos/tag.xml"
"$CRFPIPE" validate "$tmp/tagged.xml" >/dev/null || fail "tagged sample is not valid"
finish
