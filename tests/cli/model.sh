#!/bin/sh
# crfpipe model dump|info|top on a sparse POS model (ℓ1, so that zero
# weights exist): top's rankings equal the dump's weight lines sorted by
# sort(1), filters included; info's counts, range and norm equal what awk
# computes from the dump; strings holding tabs, line feeds and backslashes
# are escaped so that every line keeps its fields; errors.
. "$top_srcdir/tests/pipeline/common.sh"
pos="$top_srcdir/samples/pos"
tpl="$top_srcdir/tests/pipeline/tiny.tpl"
awk 'NR > 3000 && /^$/ { print; exit } { print }' "$pos/train.conllu" >"$tmp/train.conllu"
"$CRFPIPE" -q train --template "$tpl" --label upos --threads 1 --rho1 0.5 --model "$tmp/m" \
    "$tmp/train.conllu" || fail "train"
"$CRFPIPE" model dump "$tmp/m" >"$tmp/dump" || fail "dump"
grep '^[UB]	' "$tmp/dump" >"$tmp/w" || true
grep -v '^[UB]	' "$tmp/dump" >"$tmp/head" || true
n=$(wc -l <"$tmp/w")
[ "$n" -gt 100 ] || fail "the model has only $n weights"

# The reference ranking: the dump's weight lines with their rank key (the
# weight as written, without its sign for abs) and their line number for
# ties, sorted by sort -g; then the lines alone.
ranked() { # ORDER [AWK-FILTER]
    awk -F '\t' -v ord="$1" "${2:-1}"' {
        k = $NF
        if (ord == "abs") sub(/^-/, "", k)
        printf "%s\t%d\t%s\n", k, NR, $0 }' "$tmp/w" |
        if [ "$1" = low ]; then sort -t '	' -k1,1g -k2,2n; else sort -t '	' -k1,1gr -k2,2n; fi |
        cut -f3-
}
check() { # WHAT EXPECTED-FILE top-options...
    what=$1 exp=$2
    shift 2
    "$CRFPIPE" model top "$@" "$tmp/m" >"$tmp/got" 2>"$tmp/err" || { fail "top $*"; cat "$tmp/err" >&2; return; }
    cmp -s "$tmp/got" "$exp" || { fail "$what: top $* differs from sort's ranking"; diff "$exp" "$tmp/got" | head -5 >&2; }
}
for ord in high low abs; do
    ranked "$ord" >"$tmp/r.$ord"
    check "every weight, $ord" "$tmp/r.$ord" -n 0 --order "$ord"
    head -7 "$tmp/r.$ord" >"$tmp/r7"
    check "7 weights, $ord" "$tmp/r7" -n 7 --order "$ord"
done
head -20 "$tmp/r.high" >"$tmp/r20"
check "the default" "$tmp/r20"
[ "$(sort "$tmp/r.high" | md5sum)" = "$(sort "$tmp/w" | md5sum)" ] || fail "the ranking lost lines"

ranked high '$1 == "U"' | head -12 >"$tmp/e"
check "unigram weights" "$tmp/e" -n 12 --kind U
ranked low '$1 == "B"' | head -12 >"$tmp/e"
check "bigram weights" "$tmp/e" -n 12 --kind B --order low
ranked abs '($1 == "U" && $3 == "NOUN") || ($1 == "B" && $4 == "NOUN")' >"$tmp/e"
[ -s "$tmp/e" ] || fail "no weight into NOUN"
check "weights into NOUN" "$tmp/e" -n 0 --label NOUN --order abs
ranked high 'index($2, "U03:") == 1 && $1 == "U" && $3 == "VERB"' | head -5 >"$tmp/e"
[ -s "$tmp/e" ] || fail "no U03 weight into VERB"
check "one pattern, one label" "$tmp/e" -n 5 --observation U03: --label=VERB --kind=U
check "more lines asked than there are weights" "$tmp/r.high" -n 100000000
"$CRFPIPE" model top -n 9 -o "$tmp/top.tsv" "$tmp/m" >"$tmp/o" || fail "top -o"
[ -s "$tmp/o" ] && fail "top -o wrote to stdout"
head -9 "$tmp/r.high" | cmp -s - "$tmp/top.tsv" || fail "top -o FILE differs"

# info: the dump's header, then the sizes
"$CRFPIPE" model info "$tmp/m" >"$tmp/info" || fail "info"
head -n "$(wc -l <"$tmp/head")" "$tmp/info" | cmp -s - "$tmp/head" || fail "info does not start with the dump's header"
get() { awk -F '\t' -v k="$1" '$1 == k { print $2; exit }' "$tmp/info"; }
Y=$(get labels)
[ "$(get active)" = "$n" ] || fail "info: active $(get active), the dump has $n weights"
[ "$(get active-unigram)" = "$(grep -c '^U' "$tmp/w")" ] || fail "info: active-unigram"
[ "$(get active-bigram)" = "$(grep -c '^B' "$tmp/w")" ] || fail "info: active-bigram"
[ "$(get parameters)" = "$(($(get parameters-unigram) + $(get parameters-bigram)))" ] ||
    fail "info: parameters is not the sum of its kinds"
[ "$(get parameters-unigram)" = "$(($(get observations-unigram) * Y))" ] || fail "info: parameters-unigram"
[ "$(get parameters-bigram)" = "$(($(get observations-bigram) * (Y + 1) * Y))" ] || fail "info: parameters-bigram"
[ "$(get parameters)" -gt "$n" ] || fail "info: an l1 model with every weight non-zero"
[ "$(get file-bytes)" = "$(wc -c <"$tmp/m")" ] || fail "info: file-bytes"
[ "$(get weight-max)" = "$(head -1 "$tmp/r.high" | awk -F '\t' '{ print $NF }')" ] || fail "info: weight-max"
[ "$(get weight-min)" = "$(head -1 "$tmp/r.low" | awk -F '\t' '{ print $NF }')" ] || fail "info: weight-min"
awk -F '\t' '{ s += ($NF < 0 ? -$NF : $NF); q += $NF * $NF } END { printf "%.17g %.17g\n", s, sqrt(q) }' \
    "$tmp/w" >"$tmp/norms"
read -r l1 l2 <"$tmp/norms"
awk -v a="$(get weight-l1)" -v b="$l1" -v c="$(get weight-l2)" -v d="$l2" 'BEGIN {
    exit !((a - b < 1e-9 * b && b - a < 1e-9 * b) && (c - d < 1e-9 * d && d - c < 1e-9 * d)) }' ||
    fail "info: norms $(get weight-l1) $(get weight-l2), awk: $l1 $l2"
# per label id: unigram weights of the label, bigram weights into it
awk -F '\t' 'NR == FNR { if ($1 == "label") id[$3] = $2; next }
    $1 == "U" { u[id[$3]]++ } $1 == "B" { b[id[$4]]++ }
    END { for (i in id) printf "active-label\t%d\t%d\t%d\n", id[i], u[id[i]], b[id[i]] }' \
    "$tmp/head" "$tmp/w" | sort >"$tmp/e"
grep '^active-label	' "$tmp/info" | sort | cmp -s - "$tmp/e" || fail "info: active-label lines"
[ "$(grep -c '^active-label	' "$tmp/info")" = "$Y" ] || fail "info: not one active-label line per label"

# strings with separators in them: one line per weight, its fields intact
cat >"$tmp/esc.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<corpus xmlns="urn:crfpipe:corpus:1">
  <document id="d1" offsets="byte">
    <text>a b c d</text>
    <annotations>
      <a id="0" type="Sentence" start="0" end="7"/>
      <a id="1" type="Token" start="0" end="1"><f name="word">tab&#9;in</f><f name="tag">X&#9;Y</f></a>
      <a id="2" type="Token" start="2" end="3"><f name="word">back\slash</f><f name="tag">Z</f></a>
      <a id="3" type="Token" start="4" end="5"><f name="word">line&#10;feed&#13;</f><f name="tag">X&#9;Y</f></a>
      <a id="4" type="Token" start="6" end="7"><f name="word">plain</f><f name="tag">Z</f></a>
    </annotations>
  </document>
</corpus>
EOF
printf 'U00:%%x[0,word]\nB\n' >"$tmp/w.tpl"
"$CRFPIPE" -q train --template "$tmp/w.tpl" --label tag --model "$tmp/esc" "$tmp/esc.xml" || fail "train on escapes"
"$CRFPIPE" model dump "$tmp/esc" >"$tmp/d" || fail "dump of escapes"
grep -q '^label	0	X\\tY$' "$tmp/d" || fail "a label's tab is not escaped"
for o in 'U00:tab\\tin' 'U00:back\\\\slash' 'U00:line\\nfeed\\r'; do
    grep -q "^U	$o	" "$tmp/d" || fail "observation $o is not in the dump"
done
awk -F '\t' '/^U\t/ && NF != 4 { bad = 1 } /^B\t/ && NF != 5 { bad = 1 } END { exit bad }' "$tmp/d" ||
    fail "a weight line of the dump does not have its fields"
[ "$(grep -c '^[UB]	' "$tmp/d")" = 14 ] || fail "not 14 weight lines (5 observations)"
"$CRFPIPE" model top -n 0 --label "$(printf 'X\tY')" "$tmp/esc" >"$tmp/t" || fail "top --label with a tab"
[ "$(wc -l <"$tmp/t")" = 7 ] || fail "not 7 weights into the label with a tab"

# errors
expect_fail "unknown action 'show'" "$CRFPIPE" model show "$tmp/m"
expect_fail "usage: crfpipe model top" "$CRFPIPE" model top
expect_fail "has no label 'NOPE'" "$CRFPIPE" model top --label NOPE "$tmp/m"
expect_fail "-n needs a count" "$CRFPIPE" model top -n -3 "$tmp/m"
expect_fail "-n needs a count" "$CRFPIPE" model top -n 99999999999999999999999 "$tmp/m"
expect_fail "--order is high, low or abs" "$CRFPIPE" model top --order up "$tmp/m"
expect_fail "--kind is U" "$CRFPIPE" model top --kind T "$tmp/m"
expect_fail "did you mean '--observation'" "$CRFPIPE" model top --observatoin U0 "$tmp/m"
expect_fail "cannot open model" "$CRFPIPE" model info "$tmp/none"
expect_fail "is a directory" "$CRFPIPE" model info -o "$tmp" "$tmp/m"
expect_fail "is a directory" "$CRFPIPE" model top -o "$tmp" "$tmp/m"
printf 'not a model' >"$tmp/bad"
expect_fail "bad" "$CRFPIPE" model top "$tmp/bad"
"$CRFPIPE" model top -o "$tmp/t2" "$tmp/bad" 2>/dev/null && fail "top of a bad model succeeded"
[ -e "$tmp/t2" ] && fail "top of a bad model left its output"
finish
