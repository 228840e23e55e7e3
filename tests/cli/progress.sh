#!/bin/sh
# The progress bar: shown on a terminal (bytes, tokens/s, ETA), silent when
# stderr is piped or redirected, hidden by --quiet and CRFPIPE_PROGRESS=never,
# forced by CRFPIPE_PROGRESS=always; the output is the same either way.
. "$top_srcdir/tests/pipeline/common.sh"
pos="$top_srcdir/samples/pos"
unset CRFPIPE_PROGRESS
# a short redraw interval, so that even a fast machine draws the bar
CRFPIPE_PROGRESS_MS=2
export CRFPIPE_PROGRESS_MS

"$CRFPIPE" -q train --template "$top_srcdir/tests/pipeline/tiny.tpl" --label upos --threads 1 \
    --max-iter 3 --model "$tmp/m" "$pos/train.conllu" || fail "train"
# an input that takes more than the bar's first half second to tag
for i in 1 2 3 4; do cat "$pos/train.conllu"; done >"$tmp/big.conllu"

# 1. stderr redirected to a file: nothing but the program's own messages
"$CRFPIPE" tag --threads 1 --model "$tmp/m" -o "$tmp/out1" "$tmp/big.conllu" 2>"$tmp/err" || fail "tag"
[ -s "$tmp/err" ] && { fail "tag wrote to a redirected stderr:"; head -c 300 "$tmp/err" >&2; }

# 2. forced: the bar, then the line cleared; same output
CRFPIPE_PROGRESS=always "$CRFPIPE" tag --threads 1 --model "$tmp/m" -o "$tmp/out2" "$tmp/big.conllu" \
    2>"$tmp/bar" || fail "tag with the bar"
cmp -s "$tmp/out1" "$tmp/out2" || fail "the bar changed the output"
tr '\r' '\n' <"$tmp/bar" >"$tmp/lines"
grep -q 'tok/s' "$tmp/lines" || fail "no tokens/s in the bar"
grep -q 'ETA [0-9]' "$tmp/lines" || fail "no ETA in the bar"
grep -q ' MiB / [0-9.]* MiB' "$tmp/lines" || fail "no bytes read / size in the bar"
grep -q '\[#*\.*\]' "$tmp/lines" || fail "no bar"
# the last thing written clears the line
tail -c 4 "$tmp/bar" | od -An -c | tr -d ' \n' | grep -q '\\r033\[K' || fail "the bar is not cleared at the end"
# percentages never go down
grep -o ' [0-9]*%' "$tmp/lines" | tr -d ' %' | awk 'NR > 1 && $1 < p { bad = 1 } { p = $1 } END { exit bad }' ||
    fail "the percentage went down"

# 3. conversion has one too; stdin from a pipe has no size: no ETA, a count
CRFPIPE_PROGRESS=always "$CRFPIPE" convert --to xml -o "$tmp/x.xml" "$tmp/big.conllu" 2>"$tmp/bar" ||
    fail "convert"
tr '\r' '\n' <"$tmp/bar" | grep -q '^converting .*tok/s' || fail "no bar while converting"
cat "$tmp/big.conllu" | CRFPIPE_PROGRESS=always "$CRFPIPE" tag --threads 1 --format conllu \
    --model "$tmp/m" -o "$tmp/out3" 2>"$tmp/bar" || fail "tag from a pipe"
tr '\r' '\n' <"$tmp/bar" | grep -q 'tokens .*tok/s' || fail "no token count when the size is unknown"
tr '\r' '\n' <"$tmp/bar" | grep -q 'ETA' && fail "an ETA without a size"

# 4. on a real terminal (script(1) gives the command a pty)
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
    script -qec "'$CRFPIPE' tag --threads 1 --model '$tmp/m' -o '$tmp/out4' '$tmp/big.conllu'" \
        /dev/null >"$tmp/tty" </dev/null || fail "tag on a pty"
    tr '\r' '\n' <"$tmp/tty" | grep -q 'tok/s' || fail "no bar on a terminal"
    cmp -s "$tmp/out1" "$tmp/out4" || fail "output differs on a terminal"
    script -qec "'$CRFPIPE' --quiet tag --threads 1 --model '$tmp/m' -o '$tmp/out5' '$tmp/big.conllu'" \
        /dev/null >"$tmp/tty" </dev/null || fail "tag --quiet on a pty"
    grep -q 'tok/s' "$tmp/tty" && fail "--quiet still shows the bar"
    script -qec "CRFPIPE_PROGRESS=never '$CRFPIPE' tag --threads 1 --model '$tmp/m' -o '$tmp/out5' '$tmp/big.conllu'" \
        /dev/null >"$tmp/tty" </dev/null || fail "tag with CRFPIPE_PROGRESS=never on a pty"
    grep -q 'tok/s' "$tmp/tty" && fail "CRFPIPE_PROGRESS=never still shows the bar"
    # training keeps its per-iteration lines, with no bar
    script -qec "'$CRFPIPE' train --template '$top_srcdir/tests/pipeline/tiny.tpl' --label upos --threads 1 --max-iter 2 --model '$tmp/m2' '$pos/train.conllu'" \
        /dev/null >"$tmp/tty" </dev/null || fail "train on a pty"
    grep -q '^iter *1 ' "$tmp/tty" || fail "training on a terminal lost its iteration lines"
    grep -q 'tok/s' "$tmp/tty" && fail "training shows a tagging bar"
else
    echo "script(1) with a pty unavailable: terminal cases skipped"
fi
finish
