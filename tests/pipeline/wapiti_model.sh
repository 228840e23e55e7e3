#!/bin/sh
# A Wapiti model (tests/data/wapiti-model, made by Wapiti 1.5: see its
# make.sh) imported with `crfpipe model import` tags the test data as
# `wapiti label` did: the same best labelling and its score for every
# sentence (`label -s`), and with posterior decoding the same label and
# marginal for every token (`label -p -s`), to Wapiti's 6 printed decimals;
# so does a maximum-entropy model (-T maxent).  Written in Wapiti's format
# (--to wapiti, the column file's lines echoed), the output is byte for
# byte what `wapiti label -s` and `-p -s` printed, each token's score too.
# The same patterns, read in Wapiti's dialect (#!wapiti), make exactly the
# observations Wapiti's model lists for the training data, and trained to
# convergence reach Wapiti's optimum (ℓ2 and the elastic net).  Hostile model
# files are refused with the file, line and what is wrong, exit 1 and no
# model written.
. "$top_srcdir/tests/pipeline/common.sh"
d="$top_srcdir/tests/data/wapiti-model"

# check_model MODEL.wap VITERBI POSTERIOR NAME: MODEL imports with every
# weight, and tags as `wapiti label -s` (VITERBI) and `label -p -s`
# (POSTERIOR) did; NAME.model is left in $tmp.
check_model() {
    "$CRFPIPE" model import "$1" -o "$tmp/$4.model" 2>"$tmp/log" ||
        { cat "$tmp/log"; fail "model import $1"; }
    grep -q "imported from" "$tmp/log" || fail "no summary of the import of $1"
    "$CRFPIPE" model dump "$tmp/$4.model" >"$tmp/dump"
    grep -q "^meta	trainer	wapiti$" "$tmp/dump" || fail "$4: no trainer meta"
    # as many non-zero weights as the model file gives
    want=$(sed -n '1s/^#mdl#[02]#//p' "$1")
    got=$(awk -F'\t' '($1 == "U" || $1 == "B") && NF >= 4' "$tmp/dump" | wc -l)
    [ "$want" -gt 100 ] && [ "$got" = "$want" ] || fail "$4: $got weights imported, the file has $want"

    # Viterbi: each sentence's score (XML, in order) and each token's label
    "$CRFPIPE" tag --model "$tmp/$4.model" --format conll --scores true --to xml -o "$tmp/v.xml" \
        "$d/test.txt" || fail "$4: tag to XML"
    "$CRFPIPE" tag --model "$tmp/$4.model" --format conll -o "$tmp/v.conll" "$d/test.txt" ||
        fail "$4: tag to columns"
    per_sentence "$tmp/v.xml" predicted-scores "$tmp/v.conll" '$NF' >"$tmp/got"
    awk -F'\t' '/^# / { split($0, a, " "); print "P", a[3]; next }
                NF { print "T", $4 }' "$2" >"$tmp/want"
    [ "$(grep -c '^P' "$tmp/want")" = 40 ] && [ "$(grep -c '^T' "$tmp/want")" -gt 500 ] ||
        fail "$2 does not hold 40 sequences"
    [ "$(wc -l <"$tmp/got")" = "$(wc -l <"$tmp/want")" ] ||
        fail "$4: crfpipe gave $(wc -l <"$tmp/got") lines, Wapiti $(wc -l <"$tmp/want")"
    paste -d ' ' "$tmp/want" "$tmp/got" | awk -v m="$4" '
        $1 == "P" { if ($3 != "P" || ($2 - $4) ^ 2 > 1e-12) { bad++; if (bad < 5) print "score:", $0 } next }
        { if ($3 != "T" || $2 != $4) { bad++; if (bad < 5) print "token:", $0 } ; toks++ }
        END { printf "%s: %d tokens: Wapiti'"'"'s best labellings and their scores\n", m, toks
              exit bad > 0 }' ||
        fail "the imported $4 model does not decode as Wapiti did"

    # posterior decoding: each token's label and its marginal
    "$CRFPIPE" tag --model "$tmp/$4.model" --format conll --decode posterior --posteriors \
        -o "$tmp/p.conll" "$d/test.txt" || fail "$4: tag with posterior decoding"
    awk 'NF { print $NF, $(NF - 2) }' "$tmp/p.conll" >"$tmp/got"
    awk -F'\t' '/^#/ { next } NF { n = split($5, a, "/"); print a[1], a[n] }' "$3" >"$tmp/want"
    [ "$(wc -l <"$tmp/got")" = "$(wc -l <"$tmp/want")" ] && [ "$(wc -l <"$tmp/want")" -gt 500 ] ||
        fail "$4: posterior decoding: crfpipe gave $(wc -l <"$tmp/got") tokens, Wapiti $(wc -l <"$tmp/want")"
    paste -d ' ' "$tmp/want" "$tmp/got" | awk -v m="$4" '
        { if ($1 != $3 || ($2 - $4) ^ 2 > 1e-12) { bad++; if (bad < 5) print "token:", $0 } ; toks++ }
        END { printf "%s: %d tokens: Wapiti'"'"'s posterior labels and marginals\n", m, toks
              exit bad > 0 }' ||
        fail "the imported $4 model's marginals are not Wapiti's"

    # in Wapiti's format: byte for byte what wapiti label printed
    for dec in viterbi posterior; do
        [ $dec = viterbi ] && want=$2 || want=$3
        "$CRFPIPE" tag --model "$tmp/$4.model" --format conll --decode $dec --scores true \
            --token-scores true --to wapiti -o "$tmp/w.txt" "$d/test.txt" 2>"$tmp/log" ||
            { cat "$tmp/log"; fail "$4: tag --to wapiti, decode $dec"; }
        ! grep -q "not written" "$tmp/log" || { cat "$tmp/log"; fail "$4: columns said not written"; }
        cmp -s "$tmp/w.txt" "$want" ||
            { diff "$tmp/w.txt" "$want" | head -5; fail "$4, $dec: not what wapiti label printed"; }
    done
    echo "$4: --to wapiti: $(grep -c . "$want") lines of wapiti label -s and -p -s, byte for byte"
}
check_model "$d/model.wap" "$d/viterbi.txt" "$d/posterior.txt" m
# A maximum-entropy model (wapiti train -T maxent) is labelled by Wapiti
# as a CRF with its weights: imported the same way, it tags the same.
check_model "$d/maxent.wap" "$d/maxent-viterbi.txt" "$d/maxent-posterior.txt" me
"$CRFPIPE" model dump "$tmp/me.model" | grep -q "^meta	wapiti-type	maxent$" ||
    fail "the maxent model's import does not say it was one"
# Patterns and --me (pme.wap): every line a sample, the patterns applied to
# it alone, each observation the unigram "u"+observation (#!wapiti-me).
# Wapiti's output has a sequence per line: so has the data given here.
awk 'NF { print; print "" }' "$top_srcdir/tests/data/wapiti-model/test.txt" >"$tmp/perline.txt"
"$CRFPIPE" model import "$d/pme.wap" -o "$tmp/pme.model" 2>"$tmp/log" ||
    { cat "$tmp/log"; fail "model import pme.wap"; }
"$CRFPIPE" model dump "$tmp/pme.model" >"$tmp/dump"
grep -q '^#!wapiti-me$' "$tmp/dump" && grep -q "^meta	wapiti-me	true$" "$tmp/dump" ||
    fail "pme: not imported in the --me dialect"
"$CRFPIPE" tag --model "$tmp/pme.model" --format conll --scores true --to xml -o "$tmp/v.xml" \
    "$tmp/perline.txt" || fail "pme: tag to XML"
"$CRFPIPE" tag --model "$tmp/pme.model" --format conll -o "$tmp/v.conll" "$tmp/perline.txt" ||
    fail "pme: tag to columns"
per_sentence "$tmp/v.xml" predicted-scores "$tmp/v.conll" '$NF' >"$tmp/got"
awk -F'\t' '/^# / { split($0, a, " "); print "P", a[3]; next } NF { print "T", $1 }' \
    "$d/pme-viterbi.txt" >"$tmp/want"
[ "$(grep -c '^P' "$tmp/want")" -gt 500 ] || fail "pme-viterbi.txt holds too few sequences"
paste -d ' ' "$tmp/want" "$tmp/got" | awk '
    $1 == "P" { if ($3 != "P" || ($2 - $4) ^ 2 > 1e-12) { bad++; if (bad < 5) print "score:", $0 } next }
    { if ($3 != "T" || $2 != $4) { bad++; if (bad < 5) print "token:", $0 } ; toks++ }
    END { printf "pme: %d tokens: Wapiti'"'"'s labels and scores with patterns and --me\n", toks
          exit bad > 0 || toks < 500 }' || fail "the imported pme model does not decode as Wapiti did"
# the same labels whatever the grouping: each token is read alone
"$CRFPIPE" tag --model "$tmp/pme.model" --format conll -o "$tmp/g.conll" "$d/test.txt" ||
    fail "pme: tag sentences"
[ "$(awk 'NF { print $NF }' "$tmp/g.conll")" = "$(awk 'NF { print $NF }' "$tmp/v.conll")" ] ||
    fail "pme: the labels depend on the grouping of the tokens"
"$CRFPIPE" tag --model "$tmp/pme.model" --format conll --decode posterior --posteriors \
    -o "$tmp/p.conll" "$d/test.txt" || fail "pme: posterior decoding"
awk -F'\t' '/^#/ || NF == 0 { next } { n = split($2, a, "/"); print a[1], a[n] }' \
    "$d/pme-posterior.txt" >"$tmp/want"
awk 'NF { print $NF, $(NF - 2) }' "$tmp/p.conll" >"$tmp/got"
paste -d ' ' "$tmp/want" "$tmp/got" | awk '{ if ($1 != $3 || ($2 - $4) ^ 2 > 1e-12) bad++; toks++ }
         END { printf "pme: %d tokens: Wapiti'"'"'s posterior labels and marginals\n", toks
               exit bad > 0 || toks < 500 }' || fail "the pme model's marginals are not Wapiti's"
# in Wapiti's format, cut as make.sh cut Wapiti's: the same bytes
for dec in viterbi posterior; do
    "$CRFPIPE" tag --model "$tmp/pme.model" --format conll --decode $dec --scores true \
        --token-scores true --to wapiti -o "$tmp/w.txt" "$tmp/perline.txt" 2>/dev/null ||
        fail "pme: tag --to wapiti, decode $dec"
    awk -F'\t' '/^#/ || NF == 0 { print; next } { print $(NF - 1) "\t" $NF }' "$tmp/w.txt" |
        cmp -s - "$d/pme-$dec.txt" || fail "pme, $dec: not what wapiti label printed"
done
# trained in the same dialect: Wapiti's observations, but those of its b
# pattern ("ub..."), which a one-token sequence never scores
{ echo '#!wapiti-me'; cat "$d/patterns.txt"; } >"$tmp/me.tpl"
"$CRFPIPE" -q train --template "$tmp/me.tpl" --format conll --max-iter 1 --model "$tmp/tme.model" \
    "$d/train.txt" || fail "train in the --me dialect"
model_observations "$tmp/tme.model" >"$tmp/ours"
wapiti_observations "$d/pme.wap" | grep -v '^ub' >"$tmp/theirs"
[ "$(wc -l <"$tmp/theirs")" -gt 1000 ] && cmp -s "$tmp/ours" "$tmp/theirs" ||
    { diff "$tmp/ours" "$tmp/theirs" | head -5; fail "the --me dialect's observations differ"; }
echo "pme: $(wc -l <"$tmp/ours") observations, as Wapiti's model lists them"

want=$(sed -n '1s/^#mdl#2#//p' "$d/model.wap")

# The patterns in Wapiti's dialect: crfpipe's observations of the training
# data are the observations the Wapiti model lists (all of them, not only
# those with a weight), byte for byte.
{ echo '#!wapiti'; cat "$d/patterns.txt"; } >"$tmp/w.tpl"
"$CRFPIPE" -q train --template "$tmp/w.tpl" --format conll --max-iter 1 --model "$tmp/t.model" \
    "$d/train.txt" || fail "train with the patterns in Wapiti's dialect"
model_observations "$tmp/t.model" >"$tmp/ours"
wapiti_observations "$d/model.wap" >"$tmp/theirs"
[ "$(wc -l <"$tmp/theirs")" -gt 5000 ] || fail "model.wap lists too few observations"
cmp -s "$tmp/ours" "$tmp/theirs" ||
    { diff "$tmp/ours" "$tmp/theirs" | head -5; fail "the observations differ from Wapiti's"; }
echo "$(wc -l <"$tmp/ours") observations, as Wapiti's model lists them"

# Wapiti's optimum (l1.wap, l1-obj.txt, l2-obj.txt: Wapiti run to
# convergence): with Wapiti's model family (no start weights) and penalties
# (the same scale: rho1·|θ|₁ + rho2/2·|θ|²), crfpipe reaches the objective
# Wapiti prints (to its 2 decimals) and as many active weights; with the
# elastic net (OWL-QN in both) the same non-zero weights, each within
# 10⁻³ of Wapiti's.
wap_optimum() { # rho1 obj-file model
    "$CRFPIPE" train --template "$tmp/w.tpl" --format conll --start-weights false --rho1 "$1" \
        --rho2 1 --epsilon 1e-12 --max-iter 3000 --threads 1 --model "$3" "$d/train.txt" \
        2>"$tmp/opt.log" || { cat "$tmp/opt.log"; fail "train to Wapiti's optimum, rho1 $1"; }
    f=$(sed -n 's/.*F = \([0-9.e+-]*\).*/\1/p' "$tmp/opt.log" | tail -n 1)
    act=$(sed -n 's/.*objective [^,]*, \([0-9]*\) active.*/\1/p' "$tmp/opt.log")
    wf=$(sed -n 's/.*obj=\([0-9.]*\).*/\1/p' "$2")
    wact=$(sed -n 's/.*act=\([0-9]*\).*/\1/p' "$2")
    echo "rho1 $1, rho2 1: objective $f, $act active; Wapiti $wf, $wact active"
    awk -v a="$f" -v b="$wf" 'BEGIN { d = a - b; exit !(b > 0 && d * d <= 0.005 ^ 2) }' ||
        fail "rho1 $1: the objective $f is not Wapiti's $wf"
    [ -n "$act" ] && [ "$act" = "$wact" ] || fail "rho1 $1: $act active weights, Wapiti $wact"
}
nonzero() { # model: KEY TAB WEIGHT, by key
    "$CRFPIPE" model dump "$1" | awk -F'\t' '($1 == "U" && NF == 4) || ($1 == "B" && NF == 5) {
        k = $1; for (i = 2; i < NF; i++) k = k "|" $i; print k "\t" $NF }' | LC_ALL=C sort
}
wap_optimum 0 "$d/l2-obj.txt" "$tmp/l2.model"
wap_optimum 0.5 "$d/l1-obj.txt" "$tmp/l1.model"

# RPROP (rprop-obj.txt, rpropm-obj.txt: Wapiti's objective per iteration,
# 200 iterations of -a rprop and -a rprop-, rho2 = 1): crfpipe's rprop takes
# Wapiti's steps, so it prints the same objective at every iteration (to
# Wapiti's two decimals).  With the elastic net it reaches OWL-QN's optimum
# above (l1-obj.txt), where Wapiti's own rprop stalls (rprop-l1-obj.txt).
for v in rprop+:rprop-obj.txt rprop-:rpropm-obj.txt; do
    "$CRFPIPE" --verbose train --trainer rprop --variant "${v%%:*}" --epsilon 0 --max-iter 200 \
        --template "$tmp/w.tpl" --format conll --start-weights false --rho2 1 --threads 1 \
        --model "$tmp/rp.model" "$d/train.txt" 2>"$tmp/rp.log" ||
        { tail -3 "$tmp/rp.log"; fail "rprop ${v%%:*}"; }
    awk '/^iter [0-9]+ objective/ { printf "%d %.2f\n", $2, $4 }' "$tmp/rp.log" >"$tmp/rp.obj"
    paste -d' ' "$d/${v#*:}" "$tmp/rp.obj" | awk -v v="${v%%:*}" '
        { d = $2 - $4; if (d < 0) d = -d; if ($1 != $3 || d > 0.0051) bad++; n++; last = $2 }
        END { printf "%s: %d iterations, %d unlike Wapiti'"'"'s objective (last %s)\n", v, n, bad, last
              exit !(n == 200 && bad == 0) }' || fail "rprop ${v%%:*}: not Wapiti's trajectory"
done
"$CRFPIPE" train --trainer rprop --epsilon 0 --max-iter 1500 --rho1 0.5 --rho2 1 \
    --template "$tmp/w.tpl" --format conll --start-weights false --threads 1 \
    --model "$tmp/rp1.model" "$d/train.txt" 2>"$tmp/rp.log" || fail "rprop, elastic net"
f=$(sed -n 's/.*objective \([0-9.e+-]*\), \([0-9]*\) active.*/\1 \2/p' "$tmp/rp.log")
wf=$(sed -n 's/.*obj=\([0-9.]*\) *act=\([0-9]*\).*/\1 \2/p' "$d/l1-obj.txt")
echo "rprop, rho1 0.5: objective and active $f; OWL-QN (Wapiti) $wf; Wapiti's rprop $(cat "$d/rprop-l1-obj.txt")"
echo "$f $wf" | awk '{ d = $1 - $3; exit !(d * d <= 0.01 ^ 2 && $2 == $4) }' ||
    fail "rprop, rho1 0.5: $f is not OWL-QN's optimum $wf"
"$CRFPIPE" model import "$d/l1.wap" -o "$tmp/l1w.model" 2>"$tmp/log" ||
    { cat "$tmp/log"; fail "import l1.wap"; }
nonzero "$tmp/l1.model" >"$tmp/l1.ours"
nonzero "$tmp/l1w.model" >"$tmp/l1.theirs"
cut -f1 "$tmp/l1.ours" >"$tmp/k.ours"
cut -f1 "$tmp/l1.theirs" | cmp -s - "$tmp/k.ours" ||
    fail "the elastic net's non-zero weights are not Wapiti's ($(wc -l <"$tmp/l1.ours") and $(wc -l <"$tmp/l1.theirs"))"
paste "$tmp/l1.ours" "$tmp/l1.theirs" | awk -F'\t' '{ d = $2 - $4; if (d < 0) d = -d; if (d > m) m = d }
    END { printf "%d non-zero weights, the largest difference from Wapiti %.2g\n", NR, m
          exit !(NR > 500 && m < 1e-3) }' || fail "the elastic net's weights are not Wapiti's"

# More training from the imported model (wapiti train -m): without
# --template the model's own patterns are used, and the weights are those
# of the same run with the patterns given again.
"$CRFPIPE" -q train --init-model "$tmp/m.model" --format conll --max-iter 3 \
    --model "$tmp/more1.model" "$d/train.txt" || fail "train --init-model without --template"
"$CRFPIPE" -q train --init-model "$tmp/m.model" --template "$tmp/w.tpl" --format conll \
    --max-iter 3 --model "$tmp/more2.model" "$d/train.txt" || fail "train --init-model --template"
for k in 1 2; do
    "$CRFPIPE" model dump "$tmp/more$k.model" | awk -F'\t' '($1 == "U" || $1 == "B") && NF >= 4' \
        >"$tmp/more$k.w"
done
[ -s "$tmp/more1.w" ] && cmp -s "$tmp/more1.w" "$tmp/more2.w" ||
    fail "--init-model alone does not train as with the patterns given"
"$CRFPIPE" model dump "$tmp/more1.model" | grep -q '^#!wapiti$' ||
    fail "the model trained on from the import lost the Wapiti dialect"
# a model without the features it names is refused by the loader, and a
# template still overrides: --features given without --template is the
# user's choice (here: no template, an error)
expect_fail "template" "$CRFPIPE" train --init-model "$tmp/m.model" --features templates \
    --format conll --max-iter 1 --model "$tmp/more3.model" "$d/train.txt"

# a Wapiti model where a crfpipe one is expected says how to import it
expect_fail "model import" "$CRFPIPE" tag --model "$d/model.wap" "$d/test.txt"

# hostile files: each refused with the line and what is wrong, and no model
bad() { # what-to-expect file
    rm -f "$tmp/bad.model"
    expect_fail "$1" "$CRFPIPE" model import "$2" -o "$tmp/bad.model"
    if [ -e "$tmp/bad.model" ]; then fail "a model was written from $2"; fi
}
m="$d/model.wap"
nobs=$(grep '^#qrk#' "$m" | sed -n '2s/#qrk#//p')
obs=$(grep -n '^#qrk#' "$m" | sed -n 2p | cut -d: -f1)
head -c 3000 "$m" >"$tmp/trunc"
bad "trunc:$obs: $nobs observations announced, more than the rest of the file holds" "$tmp/trunc"
sed '1s/#mdl#2#/#mdl#1#/' "$m" >"$tmp/x"
bad "x:1: a Wapiti MEMM" "$tmp/x"
sed '1s/#mdl#2#/#mdl#3#/' "$m" >"$tmp/x"
bad "x:1: model type 3, which Wapiti does not have" "$tmp/x"
sed '1s/#mdl#2#/#mdl#/' "$m" >"$tmp/x"
bad "x:1: a Wapiti model in its older format" "$tmp/x"
# a model without patterns (tests/pipeline/wapiti_data.sh) whose patterns
# are there all the same
sed '2s/.*/#rdr#0\/1\/0/' "$m" >"$tmp/x"
bad "x:3: expected '#qrk#COUNT', the start of the labels" "$tmp/x"
sed '5s/.*/11:x02:%x[0,0],/' "$m" >"$tmp/x"
bad "x:5: pattern 3 ('x02:%x\[0,0\]') does not start with Wapiti's type letter" "$tmp/x"
sed '5s/.*/11:u02:%y[0,0],/' "$m" >"$tmp/x"
bad "x:5: unknown command '%y'" "$tmp/x"
sed '5s/.*/15:u02:%t[0,0,"*"],/' "$m" >"$tmp/x"
bad "x:5: regular expression \"\*\": a '\*' or '?' with nothing to repeat" "$tmp/x"
sed '5s/.*/3:u02:%x[0,0],/' "$m" >"$tmp/x"
bad "x:5: pattern 3: the string of 3 bytes does not end with ','" "$tmp/x"
lab=$(grep -n '^#qrk#' "$m" | head -1 | cut -d: -f1)
sed "$((lab + 2))s/.*/4:NOUN,/;$((lab + 4))s/.*/4:NOUN,/" "$m" >"$tmp/x"
bad "label .* ('NOUN') appears twice" "$tmp/x"
sed "${lab}s/.*/#qrk#99999999/" "$m" >"$tmp/x"
bad "x:$lab: 99999999 labels announced, more than the rest of the file holds" "$tmp/x"
sed "$((obs + 2))s/.*/5:x00:a,/" "$m" >"$tmp/x"
bad "x:$((obs + 2)): observation 2 ('x00:a') does not start with u, b or \*" "$tmp/x"
first=$(sed -n "$((obs + 1))p" "$m")
sed "$((obs + 2))s/.*/$first/" "$m" >"$tmp/x"
bad "x:$((obs + 2)): observation 2 .* appears twice" "$tmp/x"
w1=$(grep -n '^[0-9]*=' "$m" | head -1 | cut -d: -f1)
sed "${w1}s/=.*/=nan/" "$m" >"$tmp/x"
bad "x:$w1: weight 1: 'nan' is not a finite number" "$tmp/x"
sed "${w1}s/=.*/=0x1.5q/" "$m" >"$tmp/x"
bad "x:$w1: weight 1: '0x1.5q' is not a number" "$tmp/x"
sed "${w1}s/^[0-9]*=/999999999=/" "$m" >"$tmp/x"
bad "x:$w1: weight index 999999999 is past the model's" "$tmp/x"
sed "$((w1 + 1))s/^[0-9]*=/0=/" "$m" >"$tmp/x"
bad "x:$((w1 + 1)): weight index 0 after a larger one or itself" "$tmp/x"
{ cat "$m"; echo "12=0x1p+0"; } >"$tmp/x"
bad "text after the $want weights" "$tmp/x"
sed '$d' "$m" >"$tmp/x"
bad "the file ends after $((want - 1)) of its $want weights" "$tmp/x"
: >"$tmp/empty"
bad "not a CRFsuite model" "$tmp/empty"
expect_fail "is a directory" "$CRFPIPE" model import "$tmp" -o "$tmp/bad.model"
finish
