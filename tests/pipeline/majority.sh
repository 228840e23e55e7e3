#!/bin/sh
# The majority stage: votes per word and per entity string over one
# document (ties to the type seen first), spans that never cross a sentence,
# B/I/E/S and prefix-less labels, the document as the scope, errors; then
# the same votes recomputed by an independent awk over a shipped corpus.
. "$top_srcdir/tests/pipeline/common.sh"
P=$CRFPIPE
pipe() {   # pipe FILE COLUMNS-IN COLUMNS-OUT [MAJORITY-PARAMS]
    mp=${4:-'<param name="input" value="ne1"/>'}
    cat >"$1" <<X
<?xml version="1.0"?><pipeline xmlns="urn:crfpipe:pipeline:1">
<stage plugin="conll_reader"><param name="columns" value="$2"/><param name="batch-bytes" value="0"/></stage>
<stage plugin="majority">$mp</stage>
<stage plugin="conll_writer"><param name="columns" value="$3"/></stage></pipeline>
X
}

# 1. a hand-made case; expected columns: maj majne majspan
cat >"$tmp/a.conll" <<'X'
Juan S-PER
vive O
en O
Madrid S-LOC
. O

Madrid B-ORG
Juan S-PER
. O

Nueva B-LOC
York E-LOC
y O
Nueva B-ORG
York E-ORG
y O
Nueva B-LOC
York E-LOC

Ana B-PER

Lopez I-PER
y O
Ana B-ORG
Lopez I-ORG

-DOCSTART- O

Madrid B-ORG
Madrid I-ORG
Juan O
Juan B-PER
de O
Sao I-LOC
Paulo I-LOC
NOUN NOUN
X
cat >"$tmp/a.want" <<'X'
Juan PER PER PER
vive O none none
en O none none
Madrid LOC LOC LOC
. O none none

Madrid LOC LOC LOC
Juan PER PER PER
. O none none

Nueva LOC LOC LOC
York LOC LOC LOC
y O none none
Nueva LOC LOC LOC
York LOC LOC LOC
y O none none
Nueva LOC LOC LOC
York LOC LOC LOC

Ana PER PER PER

Lopez PER PER PER
y O none none
Ana PER PER ORG
Lopez PER PER ORG

-DOCSTART- O

Madrid ORG ORG ORG
Madrid ORG ORG ORG
Juan O PER none
Juan O PER PER
de O none none
Sao LOC LOC LOC
Paulo LOC LOC LOC
NOUN NOUN NOUN NOUN
X
pipe "$tmp/a.xml" word,ne1 word,maj,majne,majspan
$P run "$tmp/a.xml" -i "$tmp/a.conll" -o "$tmp/a.out" || fail "majority run"
cmp -s "$tmp/a.out" "$tmp/a.want" ||
    { fail "majority votes"; diff "$tmp/a.want" "$tmp/a.out" >&2 || true; }

# the output prefix, and another key column
pipe "$tmp/b.xml" w,ne1,k w,k,x,xne,xspan \
    '<param name="input" value="ne1"/><param name="key" value="k"/><param name="output" value="x"/>'
printf 'a B-PER z\nb I-PER z\n\nc S-LOC z\n' >"$tmp/b.conll"
$P run "$tmp/b.xml" -i "$tmp/b.conll" -o "$tmp/b.out" || fail "majority key/output"
printf 'a z PER PER PER\nb z PER PER PER\n\nc z PER PER LOC\n' | cmp -s - "$tmp/b.out" ||
    { fail "majority key/output"; cat "$tmp/b.out" >&2; }

# errors name the document, the token and the feature
pipe "$tmp/c.xml" word,ne word,ne
expect_fail "majority: document 'd1', token 1: no 'ne1' feature (run the first tagger" \
    $P run "$tmp/c.xml" -i "$tmp/a.conll"
pipe "$tmp/d.xml" word,ne1 word '<param name="output" value=""/>'
expect_fail "majority: output must be a name" $P run "$tmp/d.xml" -i "$tmp/b.conll"

# 2. WNUT-17 dev (shipped), its gold BIO labels as the first pass, one
# document: the votes recomputed by awk (ties to the type seen first)
dev="$top_srcdir/samples/ner/dev.conll"
pipe "$tmp/w.xml" word,ne1 word,ne1,maj,majne,majspan
$P run "$tmp/w.xml" -i "$dev" -o "$tmp/w.out" || fail "majority on WNUT-17 dev"
cat >"$tmp/ref.awk" <<'X'
function ty(l) { return l == "O" ? "O" : substr(l, 3) }
     function flush(  j, e, k) {   # the spans of the sentence just read
         for (j = 1; j <= m; j++) {
             if (ty(lab[j]) == "O") continue
             for (e = j + 1; e <= m && substr(lab[e], 1, 1) == "I" && ty(lab[e]) == ty(lab[j]); e++) ;
             k = w[j]; for (i2 = j + 1; i2 < e; i2++) k = k " " w[i2]
             ns++; skey[ns] = k; sty[ns] = ty(lab[j])
             for (i2 = j; i2 < e; i2++) spanof[n - m + i2] = ns
             if (!((k, ty(lab[j])) in sc)) sfirst[k, ty(lab[j])] = ns
             sc[k, ty(lab[j])]++; stypes[k] = stypes[k] SUBSEP ty(lab[j])
             j = e - 1
         }
         m = 0
     }
     function best(c, f, key, list, skip,  a, i, t, b, nb) {
         b = "none"; split(list, a, SUBSEP)
         for (i = 2; i in a; i++) {
             t = a[i]; if (skip && t == "O") continue
             if (b == "none" || c[key, t] > c[key, b] || (c[key, t] == c[key, b] && f[key, t] < f[key, b])) b = t
         }
         return b
     }
     NF == 0 { flush(); blank[n] = 1; next }
     { n++; m++; w[m] = $1; lab[m] = $2; word[n] = $1; t = ty($2)
       if (!(($1, t) in tc)) { tf[$1, t] = n; types[$1] = types[$1] SUBSEP t }
       tc[$1, t]++ }
     END { flush()
       for (i = 1; i <= n; i++) {
           s = spanof[i] ? best(sc, sfirst, skey[spanof[i]], stypes[skey[spanof[i]]], 0) : "none"
           print word[i], best(tc, tf, word[i], types[word[i]], 0), best(tc, tf, word[i], types[word[i]], 1), s
           if (blank[i]) print ""
       } }
X
awk -f "$tmp/ref.awk" "$dev" >"$tmp/w.want"
awk 'NF { print $1, $3, $4, $5; next } { print }' "$tmp/w.out" | cmp -s - "$tmp/w.want" ||
    { fail "majority on WNUT-17 dev differs from the awk votes"
      awk 'NF { print $1, $3, $4, $5; next } { print }' "$tmp/w.out" | diff "$tmp/w.want" - | head >&2 || true; }
grep -q ' person person person$' "$tmp/w.want" || fail "the reference found no entity"

# 3. many types and words (the tables grow and rehash several times): 300
# entity types over 9,000 tokens, against the same awk
awk 'BEGIN { srand(7); for (i = 0; i < 9000; i++) {
         r = int(rand() * 10); w = "w" int(rand() * 700)
         l = r < 4 ? "O" : (r < 7 ? "B-" : "I-") "T" int(rand() * rand() * 300)
         print w, l; if (i % 17 == 16) print "" } }' >"$tmp/m.conll"
$P run "$tmp/w.xml" -i "$tmp/m.conll" -o "$tmp/m.out" || fail "majority on 300 types"
awk -f "$tmp/ref.awk" "$tmp/m.conll" >"$tmp/m.want"
awk 'NF { print $1, $3, $4, $5; next } { print }' "$tmp/m.out" | cmp -s - "$tmp/m.want" ||
    { fail "majority on 300 types differs from the awk votes"
      awk 'NF { print $1, $3, $4, $5; next } { print }' "$tmp/m.out" | diff "$tmp/m.want" - | head >&2 || true; }
test "$(awk '{ print $3 }' "$tmp/m.want" | sort -u | wc -l)" -gt 100 || fail "too few types voted"
finish
