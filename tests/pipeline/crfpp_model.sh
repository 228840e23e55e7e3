#!/bin/sh
# A CRF++ model (tests/data/crfpp-model, made by CRF++ 0.59: see its
# make.sh), binary or text, imported with `crfpipe model import` tags the
# test data as `crf_test -v1` did: the same label and marginal for every
# token and the same probability for every sentence (to CRF++'s 6 printed
# decimals; the binary model's weights are floats, as crf_test reads them).
# Written as crf_test writes (--to crfpp), the output of -v1, -v2, -v1
# -n 2 and -v1 -c 0.5 (--weight-scale 0.5) is crf_test's but for the last
# printed digit of a few numbers (CRF++ sums in single precision).
# The same template behind #!crf++ makes exactly the features the model
# lists, and crfpipe trained to CRF++'s objective in CRF++'s model family
# reaches its weights.  Hostile model files are refused with what is wrong, exit 1 and
# no model written.
. "$top_srcdir/tests/pipeline/common.sh"
d="$top_srcdir/tests/data/crfpp-model"
test="$top_srcdir/tests/data/wapiti-model/test.txt"

awk -F'\t' '/^# / { split($0, a, " "); print "P", a[2]; next }
            NF { n = split($NF, a, "/"); print "T", a[1], a[n] }' "$d/expected.txt" >"$tmp/want"
[ "$(grep -c '^P' "$tmp/want")" = 40 ] && [ "$(grep -c '^T' "$tmp/want")" -gt 500 ] ||
    fail "expected.txt does not hold 40 sentences"
for m in model model.txt; do
    "$CRFPIPE" model import "$d/$m" -o "$tmp/$m.crfpipe" 2>"$tmp/log" ||
        { cat "$tmp/log"; fail "model import $m"; continue; }
    grep -q "imported from" "$tmp/log" || fail "no summary of the import of $m"
    "$CRFPIPE" model dump "$tmp/$m.crfpipe" | grep -q "^meta	trainer	crf++$" ||
        fail "no trainer meta in the import of $m"
    "$CRFPIPE" tag --model "$tmp/$m.crfpipe" --format conll --posteriors --to xml \
        -o "$tmp/out.xml" "$test" || fail "tag to XML with $m"
    "$CRFPIPE" tag --model "$tmp/$m.crfpipe" --format conll --posteriors -o "$tmp/out.conll" \
        "$test" || fail "tag to columns with $m"
    per_sentence "$tmp/out.xml" predicted-seqprob "$tmp/out.conll" '$NF, $(NF - 2)' >"$tmp/got"
    [ "$(wc -l <"$tmp/got")" = "$(wc -l <"$tmp/want")" ] ||
        fail "$m: crfpipe gave $(wc -l <"$tmp/got") lines, CRF++ $(wc -l <"$tmp/want")"
    paste -d ' ' "$tmp/want" "$tmp/got" | awk -v m="$m" '
        $1 == "P" { if ($3 != "P" || ($2 - $4) ^ 2 > 4e-12) { bad++; if (bad < 5) print "sentence:", $0 } next }
        { if ($4 != "T" || $2 != $5 || ($3 - $6) ^ 2 > 4e-12) { bad++; if (bad < 5) print "token:", $0 } ; toks++ }
        END { printf "%s: %d tokens with CRF++'"'"'s labels, marginals and sentence probabilities\n", m, toks; exit bad > 0 }' ||
        fail "the imported $m does not tag as crf_test did"
done
# in crf_test's own format (the model imported from the binary file)
m=model.crfpipe
"$CRFPIPE" tag --model "$tmp/$m" --posteriors --to crfpp --writer-param verbose=1 -o "$tmp/v1.txt" \
    "$test" || fail "tag --to crfpp, verbose=1"
same_but_rounding "$tmp/v1.txt" "$d/expected.txt" || fail "--to crfpp is not crf_test -v1's output"
"$CRFPIPE" tag --model "$tmp/$m" --posteriors --marginals 100 --marginals-order label --to crfpp \
    --writer-param verbose=2 -o "$tmp/v2.txt" "$test" 2>"$tmp/log" || fail "tag --to crfpp, verbose=2"
! grep -q "not written" "$tmp/log" || { cat "$tmp/log"; fail "verbose=2: marginals said not written"; }
same_but_rounding "$tmp/v2.txt" "$d/expected-v2.txt" || fail "--to crfpp is not crf_test -v2's output"
"$CRFPIPE" tag --model "$tmp/$m" --posteriors --nbest 2 --marginals 100 --to crfpp \
    --writer-param verbose=1 -o "$tmp/n2.txt" "$test" 2>/dev/null || fail "tag --to crfpp, --nbest 2"
same_but_rounding "$tmp/n2.txt" "$d/expected-n2.txt" || fail "--to crfpp is not crf_test -v1 -n 2's"
# -n 1 heads its one labelling "# 0 P" too: --nbest reaches the writer
"$CRFPIPE" tag --model "$tmp/$m" --posteriors --nbest 1 --to crfpp --writer-param verbose=1 \
    -o "$tmp/n1.txt" "$test" 2>/dev/null || fail "tag --to crfpp, --nbest 1"
same_but_rounding "$tmp/n1.txt" "$d/expected-n1.txt" || fail "--to crfpp is not crf_test -v1 -n 1's"
[ "$(grep -c '^# 0 ' "$tmp/n1.txt")" = 40 ] || fail "--nbest 1: not 40 headers '# 0 P'"
# crf_test -c 0.5 (its cost factor: every weight halved) is --weight-scale 0.5
"$CRFPIPE" tag --model "$tmp/$m" --posteriors --weight-scale 0.5 --to crfpp \
    --writer-param verbose=1 -o "$tmp/c05.txt" "$test" || fail "tag --weight-scale 0.5"
same_but_rounding "$tmp/c05.txt" "$d/expected-c05.txt" || fail "--weight-scale 0.5 is not crf_test -c 0.5"
cmp -s "$tmp/c05.txt" "$tmp/v1.txt" && fail "--weight-scale 0.5 changed nothing"
expect_fail "weight-scale must be a number above 0" "$CRFPIPE" tag --model "$tmp/$m" \
    --weight-scale 0 "$test"
expect_fail "too large for a double" "$CRFPIPE" tag --model "$tmp/$m" --weight-scale 1e308 "$test"
# without verbose: the columns and the label, as crf_test prints them
"$CRFPIPE" tag --model "$tmp/$m" --to crfpp -o "$tmp/v0.txt" "$test" || fail "tag --to crfpp"
awk -F'\t' '/^#/ { next } NF { sub(/\/[^\/]*$/, "") } { print }' "$d/expected.txt" |
    cmp -s - "$tmp/v0.txt" || fail "--to crfpp is not crf_test's output"
# what verbose needs and the tagger did not give: the option to use
expect_fail "posteriors gives it" "$CRFPIPE" tag --model "$tmp/$m" --to crfpp \
    --writer-param verbose=1 "$test"
expect_fail "marginals-order label gives" "$CRFPIPE" tag --model "$tmp/$m" --posteriors \
    --to crfpp --writer-param verbose=2 "$test"
expect_fail "no probability of each" "$CRFPIPE" tag --model "$tmp/$m" --nbest 2 --to crfpp "$test"
expect_fail "verbose must be 0, 1 or 2" "$CRFPIPE" tag --model "$tmp/$m" --to crfpp \
    --writer-param verbose=3 "$test"

# The template in CRF++'s dialect, with crf_learn's -f 3: the features of
# the text model, byte for byte.
{ echo '#!crf++'; cat "$d/template"; } >"$tmp/t.tpl"
"$CRFPIPE" -q train --template "$tmp/t.tpl" --format conll --max-iter 1 --min-freq 3 \
    --model "$tmp/t.model" "$top_srcdir/tests/data/wapiti-model/train.txt" ||
    fail "train with the template in CRF++'s dialect"
model_observations "$tmp/t.model" >"$tmp/ours"
awk '/^$/ { b++; next } b == 3 { sub(/^[0-9]+ /, ""); print }' "$d/model.txt" | LC_ALL=C sort -u \
    >"$tmp/theirs"
[ "$(wc -l <"$tmp/theirs")" -gt 500 ] || fail "model.txt lists too few features"
cmp -s "$tmp/ours" "$tmp/theirs" ||
    { diff "$tmp/ours" "$tmp/theirs" | head -5; fail "the features differ from CRF++'s"; }
echo "$(wc -l <"$tmp/ours") features, as CRF++'s model lists them"

# CRF++'s model family (every label pair, no start weights: --start-weights
# false) and objective (crf_learn -c 4 adds |w|²/8: --rho2 0.25), trained
# to the optimum as make.sh ran crf_learn: the same weights, every one of
# the text model's (by feature and labels), and no other.
for tr in "lbfgs 1e-4" "newton-cg 1e-3"; do
    set -- $tr
    "$CRFPIPE" -q train --trainer "$1" --template "$tmp/t.tpl" --format conll --min-freq 3 \
        --rho2 0.25 --start-weights false --epsilon 1e-12 --threads 1 --model "$tmp/opt.model" \
        "$top_srcdir/tests/data/wapiti-model/train.txt" || fail "$1: train to CRF++'s objective"
    "$CRFPIPE" model dump "$tmp/opt.model" >"$tmp/opt.dump"
    LC_ALL=C awk -v tr="$1" -v tol="$2" '
        BEGIN { n = k = Y = 0 }
        FNR == 1 { f++ }
        # model.txt: 4 header lines, then blank-separated labels, template,
        # "ID NAME" features and the weights, one a line in id order
        f == 1 && FNR <= 4 { next }
        f == 1 && NF == 0 { sec++; next }
        f == 1 && sec == 1 { lab[Y++] = $0; next }
        f == 1 && sec == 3 { id[n] = $1; name[n] = $2; n++; next }
        f == 1 && sec == 4 { w[k++] = $1; next }
        # the dump: U OBS LABEL W and B OBS PREVIOUS LABEL W
        f == 2 { split($0, a, "\t")
                 if (a[1] == "U" && a[4] != "") ours["U " a[2] " " a[3]] = a[4]
                 else if (a[1] == "B" && a[5] != "") ours["B " a[2] " " a[3] " " a[4]] = a[5] }
        function same(key, v,   d) { cnt++; used[key] = 1; d = (key in ours ? ours[key] : 0) - v
                                     if (d * d > max) max = d * d }
        END {
            for (i = 0; i < n; i++)
                if (name[i] ~ /^U/) for (y = 0; y < Y; y++) same("U " name[i] " " lab[y], w[id[i] + y])
                else for (p = 0; p < Y; p++) for (y = 0; y < Y; y++)
                    same("B " name[i] " " lab[p] " " lab[y], w[id[i] + p * Y + y])
            for (key in ours) if (!(key in used)) { extra++; if (extra < 4) print "not in CRF++:", key }
            printf "%s: %d weights, the largest difference from CRF++ %.2g (at most %s)\n", tr, cnt, sqrt(max), tol
            exit extra > 0 || cnt != k || cnt < 5000 || max > tol * tol }' "$d/model.txt" "$tmp/opt.dump" ||
        fail "$1 does not reach CRF++'s optimum"
done

# CRF++'s MIRA (crf_learn -a MIRA -c 0.3 -H 2: model-mira; the training
# file's first sentence numbers the labels in CRF++'s order, see make.sh):
# --variant mira takes its steps (bounded by C, sequences right twice
# skipped until the constraints hold), stops after as many iterations and
# ends with its weights, every one (the binary model keeps single
# precision: 10⁻⁶).
{ echo '#!crf++'; cat "$d/mira.tpl"; } >"$tmp/mira.tpl"
"$CRFPIPE" train --trainer perceptron --variant mira --c 0.3 --shrinking-size 2 \
    --template "$tmp/mira.tpl" --format conll --start-weights false --threads 1 \
    --model "$tmp/mira.crfpipe" "$d/mira-train.txt" 2>"$tmp/mira.log" ||
    { cat "$tmp/mira.log"; fail "train with CRF++'s MIRA"; }
grep -q "every constraint holds after $(cat "$d/mira-iter.txt") epochs" "$tmp/mira.log" ||
    { grep mira "$tmp/mira.log" >&2; fail "MIRA: not CRF++'s $(cat "$d/mira-iter.txt") iterations"; }
"$CRFPIPE" -q model import "$d/model-mira" -o "$tmp/mira.imp" || fail "import CRF++'s MIRA model"
mira_weights() { # model: U|B KEY WEIGHT of the non-zero weights, sorted
    "$CRFPIPE" model dump "$1" | awk -F'\t' '($1 == "U" || $1 == "B") && $NF + 0 != 0 {
        k = $1; for (i = 2; i < NF; i++) k = k "|" $i; print k "\t" $NF }' | LC_ALL=C sort
}
mira_weights "$tmp/mira.crfpipe" >"$tmp/mira.ours"
mira_weights "$tmp/mira.imp" >"$tmp/mira.theirs"
LC_ALL=C join -t "$(printf '\t')" -a 1 -a 2 -e 0 -o 0,1.2,2.2 "$tmp/mira.ours" "$tmp/mira.theirs" |
    awk -F'\t' '{ d = $2 - $3; if (d < 0) d = -d; if (d > m) m = d; n++ }
        END { printf "MIRA: %d weights, the largest difference from CRF++ %.2g\n", n, m
              exit !(n > 500 && m < 1e-6) }' || fail "MIRA: not CRF++'s weights"
# (its defaults are CRF++'s: C 1, no averaging, the stored order)
"$CRFPIPE" -q train --trainer perceptron --variant mira --max-epochs 2 --template "$tmp/mira.tpl" \
    --format conll --threads 1 --model "$tmp/mira2" "$d/mira-train.txt" || fail "MIRA's defaults"
expect_fail "shrinking-size=0: must be 1 to 65535" "$CRFPIPE" train --trainer perceptron \
    --variant mira --shrinking-size 0 --template "$tmp/mira.tpl" --format conll \
    --model "$tmp/x" "$d/mira-train.txt"

# a crfpipe model given to import is named as one
expect_fail "already a crfpipe model" "$CRFPIPE" model import "$tmp/model.crfpipe" -o "$tmp/again"
# a text model whose last line has no line break is the same model (its
# importer once wrote past its buffer there: the ASan build watches)
head -c $(($(wc -c <"$d/model.txt") - 1)) "$d/model.txt" >"$tmp/nonl.txt"
"$CRFPIPE" model import "$tmp/nonl.txt" -o "$tmp/nonl.crfpipe" 2>/dev/null ||
    fail "a text model without its last line break"
"$CRFPIPE" model dump "$tmp/nonl.crfpipe" | grep -v '^meta' >"$tmp/nonl.dump"
"$CRFPIPE" model dump "$tmp/model.txt.crfpipe" | grep -v '^meta' >"$tmp/txt.dump"
cmp -s "$tmp/nonl.dump" "$tmp/txt.dump" || fail "without its last line break, another model"
# nor is a file of none of the formats
printf 'hello, world\n' >"$tmp/hello"
expect_fail "hello: not a CRFsuite, Wapiti or CRF++ model" "$CRFPIPE" model import "$tmp/hello" \
    -o "$tmp/again"
# a CRF++ model where a crfpipe one is expected says how to import it
expect_fail "model import" "$CRFPIPE" tag --model "$d/model" "$test"
expect_fail "model import" "$CRFPIPE" model info "$d/model.txt"

bad() { # what-to-expect file
    rm -f "$tmp/bad.model"
    expect_fail "$1" "$CRFPIPE" model import "$2" -o "$tmp/bad.model"
    if [ -e "$tmp/bad.model" ]; then fail "a model was written from $2"; fi
}
# the binary model: sizes, the trie, the weights
size=$(wc -c <"$d/model")
head -c $((size - 4)) "$d/model" >"$tmp/x"
bad "do not fill the remaining" "$tmp/x"
head -c 30 "$d/model" >"$tmp/x"
bad "truncated" "$tmp/x"
{ head -c 4 "$d/model"; printf '\001\000\000\000'; tail -c +9 "$d/model"; } >"$tmp/x"
bad "crfpipe reads version 100, type 0" "$tmp/x"
# the root's base broken: no key can be found
{ head -c $((size - 4 * 8050 - 21592)) "$d/model"; printf '\377\377\377\377'; \
  tail -c +$((size - 4 * 8050 - 21592 + 5)) "$d/model"; } >"$tmp/x"
bad "the double array holds no feature" "$tmp/x"
# a NaN weight (the last one)
{ head -c $((size - 4)) "$d/model"; printf '\000\000\300\177'; } >"$tmp/x"
bad "weight 8049 is not a finite number" "$tmp/x"
# the text model
t="$d/model.txt"
sed '1s/.*/version: 99/' "$t" >"$tmp/x"
bad "x:1: expected 'version: 100'" "$tmp/x"
sed '3s/.*/maxid: 99999999999/' "$t" >"$tmp/x"
bad "x:3: expected 'maxid: NUMBER'" "$tmp/x"
feat=$(grep -n '^[0-9]* U00:' "$t" | head -1 | cut -d: -f1)
sed "${feat}s/^[0-9]* /99999 /" "$t" >"$tmp/x"
bad "x:$feat: feature 'U00:.*' at index 99999: its 14 weights pass maxid 8050" "$tmp/x"
sed "${feat}s/ U00:/ X00:/" "$t" >"$tmp/x"
bad "x:$feat: feature 'X00:.*' does not start with U or B" "$tmp/x"
sed "${feat}s/^\([0-9]*\) .*/\1 B/" "$t" >"$tmp/x"
bad "x:$feat: feature 'B' appears twice" "$tmp/x"
sed '$s/.*/nan/' "$t" >"$tmp/x"
bad "weight 8050: 'nan' is not a finite number" "$tmp/x"
sed '$d' "$t" >"$tmp/x"
bad "the file ends after 8049 of its 8050 weights" "$tmp/x"
{ cat "$t"; echo 0.5; } >"$tmp/x"
bad "text after the 8050 weights" "$tmp/x"
sed '6s/.*/PRON/' "$t" >"$tmp/x"
bad "label .* ('PRON') appears twice" "$tmp/x"
finish
