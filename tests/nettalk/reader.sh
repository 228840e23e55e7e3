#!/bin/sh
# nettalk_reader: the letter-aligned format (header, heteronyms, a malformed
# entry), the fold split, and conversion to columns.  The entries are made
# up (invented words and transcriptions), not NETtalk data.
. "$top_srcdir/tests/pipeline/common.sh"
P=$CRFPIPE
R="--from nettalk-letters --to conll"

# A 3-line header (the real file has 10: header=10 is the default), 12
# headwords of which "blick" is a heteronym (two lines, one number) and
# "zorp" is malformed (stress string too short), then the rest.
{ printf 'An invented dictionary\n\n---\n'
  printf 'blick\tblIk-\t1<<<<\t0\n'        # k=0
  printf 'blick\tbl^k-\t1<<<<\t1\n'        # k=0 (heteronym)
  printf 'dax\tdAX\t<1>\t0\n'               # k=1
  printf 'fep\tfEp\t<1<\t0 \n'              # k=2 (trailing blank in the flag)
  printf 'gorp\tgcrp\t<1<<\t0\n'            # k=3
  printf 'zorp\tzcrp\t0\t\n'                # k=4, malformed
  printf 'kiv\tkIv\t<1<\t2\n'               # k=5
  printf 'lum\tl^m\t<1<\t0\n'               # k=6
  printf 'mib\tmIb\t<1<\t0\n'               # k=7
  printf 'nop\tnap\t<1<\t0\n'               # k=8
  printf 'pim\tpIm\t<1<\t0\n'               # k=9
  printf 'quaz\tkw@z\t<<1<\t0\n'            # k=10
  printf 'rilt\trIlt\t<1<<\t0\n'; } > "$tmp/n.data"   # k=11

conv() {  # conv PART [FOLD]: the part as columns, one word per line (letters joined)
    $P convert $R --reader-param header=3 --reader-param folds=5 \
        --reader-param part=$1 --reader-param fold=${2:-0} "$tmp/n.data" "$tmp/$1.txt" \
        2>"$tmp/conv.err" || { fail "convert part=$1"; cat "$tmp/conv.err" >&2; }
    awk 'NF { w = w $1; p = p $2 } !NF && w != "" { print w, p; w = p = "" }
         END { if (w != "") print w, p }' "$tmp/$1.txt"
}

# 1. every entry, in order, letters with phone and stress columns
conv all > "$tmp/all"
grep -q "zorp.*not letter-aligned" "$tmp/conv.err" && grep -q "n.data:9:" "$tmp/conv.err" ||
    { fail "malformed entry: no warning naming line 9"; cat "$tmp/conv.err" >&2; }
[ "$(wc -l < "$tmp/all")" -eq 12 ] || fail "part=all: $(wc -l < "$tmp/all") words, expected 12"
head -1 "$tmp/all" | grep -qx "blick blIk-" || fail "first word"
grep -q "zorp" "$tmp/all" && fail "the malformed entry was kept"
printf 'd d <\na A 1\nx X >\n' > "$tmp/dax.want"
grep -A3 '^d d <' "$tmp/all.txt" | head -3 | cmp -s - "$tmp/dax.want" ||
    fail "dax: letter, phone, stress columns"

# 2. folds (folds=5, fold=0): headword k in fold k % 5; test = fold 0,
#    dev = fold 1, train = the rest; the heteronym stays in one part and the
#    malformed entry (k=4) still takes its number.
conv test > "$tmp/test"; conv dev > "$tmp/dev"; conv train > "$tmp/train"
printf 'blick blIk-\nblick bl^k-\nkiv kIv\nquaz kw@z\n' | cmp -s - "$tmp/test" ||
    { fail "test part"; cat "$tmp/test" >&2; }
printf 'dax dAX\nlum l^m\nrilt rIlt\n' | cmp -s - "$tmp/dev" || { fail "dev part"; cat "$tmp/dev" >&2; }
[ "$(wc -l < "$tmp/train")" -eq 5 ] || fail "train part: $(wc -l < "$tmp/train") words, expected 5"
sort "$tmp/test" "$tmp/dev" "$tmp/train" | cmp -s - "$(sort "$tmp/all" > "$tmp/alls"; echo "$tmp/alls")" ||
    fail "train, dev and test do not partition the entries"
conv test 3 > "$tmp/t3"
printf 'gorp gcrp\nnop nap\n' | cmp -s - "$tmp/t3" || { fail "fold=3 test part"; cat "$tmp/t3" >&2; }

# 3. malformed=error stops, naming the file and line; bad parameters
expect_fail "n.data:9: malformed NETtalk entry 'zorp'" $P convert $R --reader-param header=3 \
    --reader-param malformed=error "$tmp/n.data" "$tmp/x.txt"
expect_fail "parameter 'part'" $P convert $R --reader-param part=valid "$tmp/n.data" "$tmp/x.txt"
expect_fail "parameter 'fold' must be 0 .. 9" $P convert $R --reader-param fold=10 "$tmp/n.data" "$tmp/x.txt"
# hostile lines: each an error naming file:line (not a silently cut entry)
{ sed -n 1,4p "$tmp/n.data"; printf 'fl\000g\tflAg\t<1<<\t0\n'; } > "$tmp/nul.data"
expect_fail "nul.data:5: NUL byte in line" $P convert $R --reader-param header=3 "$tmp/nul.data" "$tmp/x.txt"
{ sed -n 1,4p "$tmp/n.data"; printf 'dax\tdAX\t<1>\t\377\n'; } > "$tmp/utf.data"
expect_fail "utf.data:5: invalid UTF-8 at byte 13" $P convert $R --reader-param header=3 "$tmp/utf.data" "$tmp/x.txt"
expect_fail "n.data:1: line longer than the limit line=20 bytes" $P --limit line=20 convert $R \
    --reader-param header=3 "$tmp/n.data" "$tmp/x.txt"
# the default header is 10 lines: here that swallows the first 7 entries
$P convert $R "$tmp/n.data" "$tmp/h.txt" 2>/dev/null || fail "default header"
[ "$(grep -c '^$' "$tmp/h.txt")" -eq 6 ] || fail "header=10: expected 6 words"

# 4. the columns train a model directly
printf 'U00:%%x[0,letter]\n*01:%%x[-1,letter]/%%x[0,letter]/%%x[1,letter]\nB\n' > "$tmp/t.tpl"
$P train --quiet --template "$tmp/t.tpl" --columns letter,phone,stress --label phone \
    --max-iter 5 --model "$tmp/m" "$tmp/train.txt" 2>"$tmp/err" || { fail "train"; cat "$tmp/err" >&2; }
$P eval --model "$tmp/m" --columns letter,phone,stress "$tmp/dev.txt" > "$tmp/ev" 2>&1 || { fail "eval"; cat "$tmp/ev" >&2; }
finish
