#!/bin/sh
# The reports as a browser shows them (train --report, eval --report, the
# regularisation path's --path-report, crfpipe plot): each SVG is rendered by headless
# Chromium into a PNG screenshot, which must be the size asked and mostly
# drawn (not blank, not an error page).  Skipped when Chromium is not
# installed (Debian: apt-get install chromium; ./quickstart installs it with
# QUICKSTART_BROWSER=1).  CRFP_SCREENSHOT_DIR=DIR keeps the screenshots
# there, to look at.
. "$top_srcdir/tests/pipeline/common.sh"
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chrome" ] || { echo "no chromium: skipped"; exit 77; }
pos="$top_srcdir/samples/pos"
out=${CRFP_SCREENSHOT_DIR:-$tmp}
mkdir -p "$out"

"$CRFPIPE" -q train --template "$top_srcdir/tests/pipeline/tiny.tpl" --label upos --threads 1 \
    --max-iter 12 --dev "$pos/dev.conllu" --model "$tmp/a.model" --report "$out/train.svg" \
    "$pos/train.conllu" || fail "train --report"
"$CRFPIPE" -q train --trainer sgd-l1,lbfgs --template "$top_srcdir/tests/pipeline/tiny.tpl" \
    --label upos --threads 1 --max-iter 5 --train-error true --dev "$pos/dev.conllu" \
    --model "$tmp/b.model" --report "$out/chain.svg" "$pos/train.conllu" || fail "chain --report"
"$CRFPIPE" eval --model "$tmp/a.model" --report "$out/eval.svg" "$pos/test.conllu" >/dev/null ||
    fail "eval --report"
# a regularisation path (its chart), and runs overlaid by crfpipe plot:
# the dev error of three trainers against their training time
"$CRFPIPE" -q train --template "$top_srcdir/tests/pipeline/tiny.tpl" --label upos --threads 1 \
    --dev "$pos/dev.conllu" --rho1-path 2,1,0.5,0.25 --max-iter 15 --model "$tmp/p.model" \
    --path-report "$out/path.svg" --report "$tmp/path.tsv" "$pos/train.conllu" >/dev/null ||
    fail "train --rho1-path"
for t in sgd-l1 perceptron; do
    "$CRFPIPE" -q train --trainer $t --template "$top_srcdir/tests/pipeline/tiny.tpl" \
        --label upos --threads 1 --max-iter 5 --dev "$pos/dev.conllu" --dev-patience 0 \
        --model "$tmp/$t.model" --report "$tmp/$t.tsv" "$pos/train.conllu" ||
        fail "$t --report .tsv"
done
"$CRFPIPE" plot -o "$out/plot.svg" --y-max 40 --title "dev error against training time" \
    lbfgs-path="$tmp/path.tsv" "$tmp/sgd-l1.tsv" "$tmp/perceptron.tsv" || fail "plot"

for f in train chain eval path plot; do
    w=$(head -c 400 "$out/$f.svg" | sed -n 's/.*width="\([0-9]*\)px".*/\1/p')
    h=$(head -c 400 "$out/$f.svg" | sed -n 's/.*height="\([0-9]*\)px".*/\1/p')
    [ -n "$w" ] && [ -n "$h" ] || { fail "$f.svg: no size"; continue; }
    profile=$(mktemp -d "$tmp/profile.XXXXXX")
    timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --user-data-dir="$profile" --hide-scrollbars --window-size="$w,$h" \
        --screenshot="$out/$f-browser.png" "file://$out/$f.svg" >"$tmp/chrome.log" 2>&1 ||
        { fail "chromium could not render $f.svg"; tail -5 "$tmp/chrome.log" >&2; continue; }
    "$top_builddir/tests/cli/test_plot" --inked "$out/$f-browser.png" >"$tmp/ink" ||
        { fail "$f-browser.png unreadable"; continue; }
    read -r pw ph ink <"$tmp/ink"
    echo "$f.svg in the browser: ${pw}x$ph, $ink% drawn"
    [ "$pw" = "$w" ] && [ "$ph" = "$h" ] || fail "$f screenshot is ${pw}x$ph, not ${w}x$h"
    # charts are mostly white paper; a blank or failed render has no ink
    awk -v i="$ink" 'BEGIN { exit !(i >= 2 && i <= 60) }' || fail "$f screenshot is $ink% drawn"
done
[ "$out" = "$tmp" ] || echo "screenshots in $out"
finish
