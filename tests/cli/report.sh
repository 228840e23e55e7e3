#!/bin/sh
# crfpipe train --report and eval --report: SVG (well-formed, sized as
# drawn) or PNG by the file name, written whole or not at all, also for a
# chain of trainers and an interrupted-looking short run; pixels of the
# charts are checked by tests/cli/test_plot.
. "$top_srcdir/tests/pipeline/common.sh"
pos="$top_srcdir/samples/pos"
tpl="$top_srcdir/tests/pipeline/tiny.tpl"

# png_size FILE: "W H" from the IHDR chunk
png_size() {
    od -An -tu1 -j16 -N8 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4, $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }'
}
is_png() { od -An -tx1 -N8 "$1" | tr -d ' \n' | grep -qx 89504e470d0a1a0a; }
svg_ok() { # FILE W H
    head -c 300 "$1" | grep -q "<svg .*width=\"$2px\" height=\"$3px\"" || return 1
    if command -v xmllint >/dev/null 2>&1; then xmllint --noout "$1" || return 1; fi
    grep -q '<path' "$1"
}

"$CRFPIPE" train --template "$tpl" --label upos --threads 1 --max-iter 6 --dev "$pos/dev.conllu" \
    --model "$tmp/a.model" --report "$tmp/train.svg" "$pos/train.conllu" 2>"$tmp/log" ||
    { fail "train --report"; cat "$tmp/log" >&2; }
svg_ok "$tmp/train.svg" 1100 940 || fail "train.svg is not a 1100x940 SVG with curves"
grep -q "training report written to $tmp/train.svg" "$tmp/log" || fail "no message naming the report"
ls "$tmp" | grep -q '\.tmp\.' && fail "a temporary file was left behind"

"$CRFPIPE" -q train --trainer sgd-l1,lbfgs --template "$tpl" --label upos --threads 1 --max-iter 3 \
    --train-error true --dev "$pos/dev.conllu" --model "$tmp/b.model" --report "$tmp/train.PNG" \
    "$pos/train.conllu" || fail "chain with --report"
is_png "$tmp/train.PNG" || fail "train.PNG is not a PNG"
[ "$(png_size "$tmp/train.PNG")" = "1100 940" ] || fail "train.PNG is $(png_size "$tmp/train.PNG"), not 1100x940"

# a run that fails before its first iteration leaves no report
"$CRFPIPE" -q train --template /nonexistent.tpl --label upos --model "$tmp/c.model" \
    --report "$tmp/none.svg" "$pos/train.conllu" 2>/dev/null && fail "training with a missing template succeeded"
[ -e "$tmp/none.svg" ] && fail "a failed run wrote a report"
# an unwritable report is an error that names it, before training (the
# model of hours of training was saved, and the report then failed)
expect_fail "$tmp/no/such/dir/r.svg" "$CRFPIPE" -q train --template "$tpl" --label upos --threads 1 \
    --max-iter 2 --model "$tmp/d.model" --report "$tmp/no/such/dir/r.svg" "$pos/train.conllu"
[ -e "$tmp/d.model" ] && fail "training ran although its report could not be written"

# eval: heat map and bars; the text report is unchanged by --report
"$CRFPIPE" eval --model "$tmp/a.model" "$pos/test.conllu" >"$tmp/plain.txt" || fail "eval"
"$CRFPIPE" eval --model "$tmp/a.model" --report "$tmp/eval.svg" "$pos/test.conllu" >"$tmp/r.txt" ||
    fail "eval --report svg"
cmp -s "$tmp/plain.txt" "$tmp/r.txt" || fail "--report changed the text report"
head -c 300 "$tmp/eval.svg" | grep -q '<svg ' || fail "eval.svg is not SVG"
if command -v xmllint >/dev/null 2>&1; then xmllint --noout "$tmp/eval.svg" || fail "eval.svg is not well-formed"; fi
"$CRFPIPE" eval --model "$tmp/a.model" --report "$tmp/eval.png" "$pos/test.conllu" >/dev/null ||
    fail "eval --report png"
is_png "$tmp/eval.png" || fail "eval.png is not a PNG"
set -- $(png_size "$tmp/eval.png")
[ "$1" -ge 900 ] && [ "$2" -ge 600 ] || fail "eval.png is only $1x$2"
# the report of a tagged file, as crfpipe tag wrote it
"$CRFPIPE" tag --model "$tmp/a.model" -o "$tmp/tagged.conllu" "$pos/test.conllu" || fail "tag"
"$CRFPIPE" eval --report "$tmp/eval2.svg" "$tmp/tagged.conllu" >/dev/null || fail "eval --report of a tagged file"
[ -s "$tmp/eval2.svg" ] || fail "no report for the tagged file"
expect_fail "$tmp/no/such/dir/e.svg" "$CRFPIPE" eval --report "$tmp/no/such/dir/e.svg" "$tmp/tagged.conllu"

# the pixels: heat map cells, colours, curves
"$top_builddir/tests/cli/test_plot" "$tmp" || fail "test_plot"
finish
