#!/bin/sh
# crfpipe train --rho1-path (a regularisation path) and crfpipe plot:
# warm starts really happen, sparser models for larger rho1, one loadable
# model per point, the table's rows, the charts; refusals before any data
# is read.  A small slice of the POS sample, one thread: a few seconds.
. "$top_srcdir/tests/pipeline/common.sh"
pos="$top_srcdir/samples/pos"
tpl="$top_srcdir/tests/pipeline/tiny.tpl"
# the first ~300 sentences (up to a sentence boundary)
awk 'NR > 6000 && /^$/ { print; exit } { print }' "$pos/train.conllu" >"$tmp/train.conllu"
awk 'NR > 1500 && /^$/ { print; exit } { print }' "$pos/dev.conllu" >"$tmp/dev.conllu"
base="--template $tpl --label upos --threads 1"

# 1. the path: three widely spaced values, the dev set only scored
#    (--dev-patience 0) so that each point runs to the optimizer's own end
"$CRFPIPE" train $base --dev "$tmp/dev.conllu" --dev-patience 0 --rho1-path 4,1,0.25 \
    --model "$tmp/m" --report "$tmp/run.tsv" --path-report "$tmp/path.svg" \
    "$tmp/train.conllu" >"$tmp/table" 2>"$tmp/log" || { fail "train --rho1-path"; cat "$tmp/log" >&2; }

# the table: a header and one row per point, in the order given
head -1 "$tmp/table" | grep -q "^rho1	iterations	active	dev_error_pct	" ||
    fail "the table has no header: $(head -1 "$tmp/table")"
[ "$(tail -n +2 "$tmp/table" | cut -f1 | tr '\n' ' ')" = "4 1 0.25 " ] ||
    { fail "the table's rows are not rho1 = 4, 1, 0.25"; cat "$tmp/table" >&2; }
# every point has its model, which tags; MODEL is one of them
for v in 4 1 0.25; do
    [ -f "$tmp/m.rho1-$v" ] || { fail "no model m.rho1-$v"; continue; }
    grep -q "	$tmp/m.rho1-$v\$" "$tmp/table" || fail "the table does not name m.rho1-$v"
    "$CRFPIPE" tag --model "$tmp/m.rho1-$v" -o "$tmp/t.conllu" "$tmp/dev.conllu" ||
        fail "tag with m.rho1-$v"
    "$CRFPIPE" model dump "$tmp/m.rho1-$v" | grep -q "^rho1 *[=:]* *$v\b\|rho1.*\b$v\b" ||
        fail "m.rho1-$v does not record rho1 = $v"
done
[ -f "$tmp/m" ] || fail "no model at --model"
# MODEL is the point of lowest dev error, byte for byte
best=$(tail -n +2 "$tmp/table" | sort -t "	" -k4,4g | head -1 | cut -f1)
cmp -s "$tmp/m" "$tmp/m.rho1-$best" || fail "--model is not the best point's model (rho1 = $best)"
# the dev error is a number on every row
tail -n +2 "$tmp/table" | awk -F'\t' '$4 + 0 <= 0 || $4 + 0 >= 100 { exit 1 }' ||
    fail "a dev error is not a percentage"

# sparser for larger rho1: active features non-increasing as rho1 grows
tail -n +2 "$tmp/table" | awk -F'\t' 'NR > 1 && $3 < prev { exit 1 } { prev = $3 }' ||
    { fail "active features decrease as rho1 decreases"; cat "$tmp/table" >&2; }

# warm starts: point 2 (rho1 = 1) starts from point 1's weights, so its
# first objective is far below that of a cold run at rho1 = 1 (which starts
# from zero weights; identical otherwise, so without a warm start the two
# would be equal)
"$CRFPIPE" train $base --dev "$tmp/dev.conllu" --dev-patience 0 --rho1 1 --max-iter 1 \
    --model "$tmp/cold" --report "$tmp/cold.tsv" "$tmp/train.conllu" 2>/dev/null ||
    fail "cold run"
# columns: point 3, iter 5, objective 8
warm1=$(awk -F'\t' '$3 == 1 && $5 == 1 { print $8 }' "$tmp/run.tsv")
cold1=$(awk -F'\t' 'NR == 2 { print $8 }' "$tmp/cold.tsv")
end0=$(awk -F'\t' '$3 == 0 { f = $8 } END { print f }' "$tmp/run.tsv")
[ -n "$warm1" ] && [ -n "$cold1" ] || fail "no first iteration of point 2 or of the cold run"
awk -v w="$warm1" -v c="$cold1" 'BEGIN { exit !(w < 0.5 * c) }' ||
    fail "no warm start: point 2 begins at objective $warm1, a cold run at $cold1"
# ... and below where point 1 ended: the same weights with a smaller penalty
awk -v w="$warm1" -v e="$end0" 'BEGIN { exit !(w < e) }' ||
    fail "point 2 begins at objective $warm1, above point 1's final $end0"
# the iteration table covers every point: as many rows as iterations
rows=$(tail -n +2 "$tmp/run.tsv" | wc -l)
iters=$(tail -n +2 "$tmp/table" | awk -F'\t' '{ s += $2 } END { print s }')
[ "$rows" -eq "$iters" ] || fail "run.tsv has $rows rows for $iters iterations"
# its clocks run on across the points: wall, training, training CPU time
head -1 "$tmp/run.tsv" | grep -q "	seconds	train_seconds	.*	train_cpu_seconds" ||
    fail "run.tsv lacks its time columns: $(head -1 "$tmp/run.tsv")"
awk -F'\t' 'NR > 2 && ($6 < s || $7 < t || $14 < c) { exit 1 } NR > 1 { s = $6; t = $7; c = $14 }
    END { exit !(t <= s && c > 0) }' "$tmp/run.tsv" ||
    fail "run.tsv's times go backwards, or training time exceeds the time"

# the chart: well-formed SVG of the declared size, with curves
head -c 300 "$tmp/path.svg" | grep -q '<svg .*width="1100px" height="520px"' ||
    fail "path.svg is not a 1100x520 SVG"
if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout "$tmp/path.svg" || fail "path.svg is not well-formed XML"
fi
grep -q '<path' "$tmp/path.svg" || fail "path.svg draws nothing"
grep -q "path report written to $tmp/path.svg" "$tmp/log" || fail "no message naming the chart"

# -o: the same table in a file, nothing on stdout; without a dev set the
# errors are nan and --model is the last point
"$CRFPIPE" -q train $base --rho1-path 1,0.5 --max-iter 3 --model "$tmp/n" -o "$tmp/n.tsv" \
    --path-report "$tmp/n.png" "$tmp/train.conllu" >"$tmp/stdout" || fail "train --rho1-path -o"
[ -s "$tmp/stdout" ] && fail "-o given, but the table went to stdout too"
[ "$(tail -n +2 "$tmp/n.tsv" | cut -f1,4 | tr '\t\n' ': ')" = "1:nan 0.5:nan " ] ||
    { fail "table without a dev set"; cat "$tmp/n.tsv" >&2; }
cmp -s "$tmp/n" "$tmp/n.rho1-0.5" || fail "without a dev set --model is not the last point"
od -An -tx1 -N4 "$tmp/n.png" | grep -q '89 50 4e 47' || fail "--path-report x.png is not a PNG"
ls "$tmp" | grep -q '\.tmp\.' && fail "a temporary file was left behind"

# sgd-l1 and bcd run paths too
for t in sgd-l1 bcd; do
    "$CRFPIPE" -q train $base --trainer $t --rho1-path 1,0.25 --max-iter 2 --model "$tmp/$t" \
        "$tmp/train.conllu" >"$tmp/$t.table" || fail "$t --rho1-path"
    [ -f "$tmp/$t.rho1-0.25" ] || fail "$t: no model for the second point"
done

# refusals, before any data is read and without writing a model
expect_fail "trainer 'perceptron' does not support the l1 penalty" \
    "$CRFPIPE" train $base --trainer perceptron --rho1-path 1,0.5 --model "$tmp/x" "$tmp/train.conllu"
expect_fail "does not support the l1 penalty" \
    "$CRFPIPE" train $base --trainer newton-cg --rho1-path 1,0.5 --model "$tmp/x" "$tmp/train.conllu"
expect_fail "not a chain" \
    "$CRFPIPE" train $base --trainer sgd-l1,lbfgs --rho1-path 1,0.5 --model "$tmp/x" "$tmp/train.conllu"
expect_fail "rho1 and rho1-path exclude each other" \
    "$CRFPIPE" train $base --rho1 1 --rho1-path 1,0.5 --model "$tmp/x" "$tmp/train.conllu"
expect_fail "'x' is not a finite l1 weight" \
    "$CRFPIPE" train $base --rho1-path 1,x --model "$tmp/x" "$tmp/train.conllu"
expect_fail "0.5 appears twice" \
    "$CRFPIPE" train $base --rho1-path 0.5,1,0.50 --model "$tmp/x" "$tmp/train.conllu"
expect_fail "cannot write the model there" \
    "$CRFPIPE" train $base --rho1-path 1,0.5 --model "$tmp/no/dir/x" "$tmp/train.conllu"
expect_fail "--path-report needs --rho1-path" \
    "$CRFPIPE" train $base --path-report "$tmp/x.svg" --model "$tmp/x" "$tmp/train.conllu"
ls "$tmp" | grep -q '^x' && fail "a refused run wrote $(ls "$tmp" | grep '^x' | head -1)"
# an unwritable chart is an error that names it
expect_fail "$tmp/no/dir/p.svg" "$CRFPIPE" -q train $base --rho1-path 1 --max-iter 2 \
    --model "$tmp/y" --path-report "$tmp/no/dir/p.svg" "$tmp/train.conllu"
[ -e "$tmp/y.rho1-1" ] && fail "the path trained although its chart could not be written"
# the path's -o is opened before the path trains: one that cannot be
# written fails at once
expect_fail "is a directory" "$CRFPIPE" train $base --rho1-path 1,0.5 --max-iter 2 \
    --model "$tmp/y" -o "$tmp" "$tmp/train.conllu"
grep -q "path point" "$tmp/err" && fail "the path trained before -o was refused"
"$CRFPIPE" plugins lbfgs | grep -q '^l1: *yes$' || fail "plugins lbfgs does not say l1: yes"
"$CRFPIPE" plugins perceptron | grep -q '^l1: *no$' || fail "plugins perceptron does not say l1: no"

# crfpipe plot: runs overlaid from their tables
"$CRFPIPE" plot -o "$tmp/cmp.svg" --title "two runs" path="$tmp/run.tsv" "$tmp/cold.tsv" ||
    fail "plot"
head -c 300 "$tmp/cmp.svg" | grep -q '<svg .*width="1100px" height="720px"' ||
    fail "cmp.svg is not a 1100x720 SVG"
if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout "$tmp/cmp.svg" || fail "cmp.svg is not well-formed XML"
fi
grep -q '<path' "$tmp/cmp.svg" || fail "cmp.svg draws nothing"
for y in objective active dev-seq-error; do
    "$CRFPIPE" plot -o "$tmp/y.png" --x iteration --y "$y" --x-max 20 "$tmp/run.tsv" ||
        fail "plot --y $y"
done
for x in cpu seconds; do
    "$CRFPIPE" plot -o "$tmp/x.svg" --x "$x" --y-max 50 "$tmp/run.tsv" || fail "plot --x $x"
done
expect_fail "No such file" "$CRFPIPE" plot -o "$tmp/z.svg" "$tmp/none.tsv"
expect_fail "not a table written by crfpipe train" "$CRFPIPE" plot -o "$tmp/z.svg" "$tmp/table"
expect_fail "-o FILE is required" "$CRFPIPE" plot "$tmp/run.tsv"
expect_fail "did you mean '--y-max'" "$CRFPIPE" plot -o "$tmp/z.svg" --ymax 3 "$tmp/run.tsv"
expect_fail "--x must be" "$CRFPIPE" plot -o "$tmp/z.svg" --x weeks "$tmp/run.tsv"
[ -e "$tmp/z.svg" ] && fail "a failed plot wrote its file"

# tables are input like any other: a narrow range at a huge magnitude (where
# adding a tick's step to a tick would not move it: the tick loop hung), times
# that are not finite, a line over the line limit, a NUL byte, an empty file
hdr='iter	train_seconds	dev_error'
printf '%s\n1\t1e20\t0.1\n2\t1.0000000000000002e20\t0.05\n' "$hdr" >"$tmp/narrow.tsv"
to=""
command -v timeout >/dev/null 2>&1 && to="timeout 60"
$to "$CRFPIPE" plot -o "$tmp/narrow.svg" "$tmp/narrow.tsv" || fail "plot of a narrow range at 1e20"
grep -q '<path' "$tmp/narrow.svg" 2>/dev/null || fail "narrow.svg draws nothing"
printf '%s\n1\t1e-300\t0.1\n2\t1e300\t0.05\n3\t-1.7e308\t0.07\n' "$hdr" >"$tmp/wide.tsv"
$to "$CRFPIPE" plot -o "$tmp/wide.svg" "$tmp/wide.tsv" || fail "plot of a range of 1e308"
printf '%s\n1\t1\t0.1\n2\tinf\t0.05\n' "$hdr" >"$tmp/inf.tsv"
expect_fail "inf.tsv:3: no finite number in column 'train_seconds'" \
    "$CRFPIPE" plot -o "$tmp/z.svg" "$tmp/inf.tsv"
printf '%s\n1\t1\t0.1\n2\t2\t%0200d\n' "$hdr" 0 >"$tmp/long.tsv"
expect_fail "long.tsv:3: line longer than the limit line=100" \
    "$CRFPIPE" --limit line=100 plot -o "$tmp/z.svg" "$tmp/long.tsv"
"$CRFPIPE" --limit line=300 plot -o "$tmp/long.svg" "$tmp/long.tsv" ||
    fail "a line within the limit was refused"
printf '%s\n1\t1\t0.1\0003\n' "$hdr" >"$tmp/nul.tsv"
expect_fail "nul.tsv:2: NUL byte" "$CRFPIPE" plot -o "$tmp/z.svg" "$tmp/nul.tsv"
: >"$tmp/empty.tsv"
expect_fail "empty.tsv: not a table" "$CRFPIPE" plot -o "$tmp/z.svg" "$tmp/empty.tsv"
[ -e "$tmp/z.svg" ] && fail "a failed plot wrote its file"
# an objective that overflowed (or text) is a gap in the curve, and said;
# "nan", the report's "not measured", is a gap too, silently
printf '%s\n1\t1\t0.3\n2\t2\tinf\n3\t3\tnan\n4\t4\tabc\n5\t5\t0.1\n' "$hdr" >"$tmp/gap.tsv"
"$CRFPIPE" plot -o "$tmp/gap.svg" "$tmp/gap.tsv" 2>"$tmp/gap.log" || fail "plot with gaps"
grep -q "gap.tsv: 2 rows with no finite number in column 'dev_error' left a gap" "$tmp/gap.log" ||
    { fail "no warning about the gaps"; cat "$tmp/gap.log" >&2; }
finish
