#!/bin/sh
# Wapiti's data with its observations given (what `wapiti train` reads
# without a pattern file; tests/data/wapiti-model/raw.awk makes it from the
# EWT excerpt): read by wapiti_reader, written by wapiti_writer as `wapiti
# label` prints it, observations made by the attributes plugin as Wapiti
# makes them (bigram=wapiti; bigram=wapiti-me for data read as `wapiti
# train --me` reads it).  Models Wapiti 1.5 trained on that data (see
# make.sh) import and tag the test data as `wapiti label -c -s`, `-c -p -s`
# and `-c -s -n 2` did, byte for byte: every sequence's score, every
# token's label and score (its marginal with -p), the two best labellings.
# crfpipe trained on the same data makes exactly the observations the Wapiti
# models list.  Malformed data is refused with the file and line.
. "$top_srcdir/tests/pipeline/common.sh"
d="$top_srcdir/tests/data/wapiti-model"
LC_ALL=C awk -F'\t' -f "$d/raw.awk" "$d/train.txt" >"$tmp/train.txt"
LC_ALL=C awk -F'\t' -f "$d/raw.awk" "$d/test.txt" >"$tmp/test.txt"
cut_lines() { # as make.sh cuts Wapiti's output: the token lines' last two fields
    awk -F'\t' '/^#/ || NF == 0 { print; next } { print $(NF - 1) "\t" $NF }'
}
[ "$(grep -c . "$tmp/test.txt")" -gt 500 ] || fail "raw.awk made too little test data"

# check NAME SEQUENCES READER-PARAMS...: $d/NAME.wap imports with every
# weight and tags $tmp/test.txt (SEQUENCES sequences) as NAME-viterbi.txt
# and NAME-posterior.txt say.
check() {
    m=$1 nseq=$2
    shift 2
    "$CRFPIPE" model import "$d/$m.wap" -o "$tmp/$m.model" 2>"$tmp/log" ||
        { cat "$tmp/log"; fail "model import $m.wap"; }
    "$CRFPIPE" model dump "$tmp/$m.model" >"$tmp/dump"
    grep -q "^features	attributes$" "$tmp/dump" || fail "$m: not an attributes model"
    want=$(sed -n '1s/^#mdl#2#//p' "$d/$m.wap")
    got=$(awk -F'\t' '($1 == "U" || $1 == "B") && NF >= 4' "$tmp/dump" | wc -l)
    [ "$want" -gt 100 ] && [ "$got" = "$want" ] || fail "$m: $got weights imported, the file has $want"

    # Viterbi and posterior decoding, in Wapiti's output format: each
    # token's input line, a TAB, its label, a TAB and LABEL/SCORE; each
    # sequence headed by "# 0 SCORE" (the fixtures keep the last two
    # fields of the token lines)
    for dec in viterbi posterior; do
        "$CRFPIPE" tag --model "$tmp/$m.model" --format wapiti "$@" --decode $dec \
            --scores true --token-scores true -o "$tmp/v.txt" "$tmp/test.txt" 2>"$tmp/log" ||
            { cat "$tmp/log"; fail "$m: tag, decode $dec"; }
        ! grep -q "not written" "$tmp/log" || fail "$m: the scores are said not to be written"
        awk '/^#/ || NF == 0 { next } { print }' "$tmp/v.txt" | cut -f1 >"$tmp/lines"
        grep . "$tmp/test.txt" | cmp -s - "$tmp/lines" || fail "$m: the input lines are not echoed"
        cut_lines <"$tmp/v.txt" >"$tmp/got"
        cmp -s "$tmp/got" "$d/$m-$dec.txt" ||
            { diff "$tmp/got" "$d/$m-$dec.txt" | head -5; fail "$m, $dec: not what wapiti label printed"; }
        echo "$m, $dec: $(grep -c '^# ' "$tmp/got") sequences, $(grep -c / "$tmp/got") tokens, \
as wapiti label printed them"
    done
    [ "$(grep -c '^# ' "$tmp/got")" = "$nseq" ] && [ "$(grep -c / "$tmp/got")" -gt 500 ] ||
        fail "$m: too few sequences or tokens compared"

    # training on the same data makes the observations the model lists
    "$CRFPIPE" -q train --format wapiti "$@" --features attributes \
        --feature-param bigram=$bigram --max-iter 1 --model "$tmp/t.model" "$tmp/train.txt" ||
        fail "$m: train on Wapiti's data"
    model_observations "$tmp/t.model" >"$tmp/ours"
    wapiti_observations "$d/$m.wap" >"$tmp/theirs"
    [ "$(wc -l <"$tmp/theirs")" -gt 1000 ] || fail "$m.wap lists too few observations"
    cmp -s "$tmp/ours" "$tmp/theirs" ||
        { diff "$tmp/ours" "$tmp/theirs" | head -5; fail "$m: the observations differ from Wapiti's"; }
    echo "$m: $(wc -l <"$tmp/ours") observations, as Wapiti's model lists them"
}
bigram=wapiti check raw 40
"$CRFPIPE" model dump "$tmp/raw.model" | grep -q "^bigram=wapiti$" || fail "raw: not bigram=wapiti"
# the two best labellings (wapiti label -n 2): each in turn, headed by its
# rank and score
"$CRFPIPE" tag --model "$tmp/raw.model" --format wapiti --nbest 2 --scores true \
    --token-scores true -o "$tmp/n.txt" "$tmp/test.txt" 2>"$tmp/log" ||
    { cat "$tmp/log"; fail "tag --nbest 2"; }
! grep -q "not written" "$tmp/log" || fail "the n-best labels are said not to be written"
cut_lines <"$tmp/n.txt" >"$tmp/got"
cmp -s "$tmp/got" "$d/raw-nbest.txt" || { diff "$tmp/got" "$d/raw-nbest.txt" | head -5;
    fail "the two best labellings are not Wapiti's"; }
[ "$(grep -c '^# ' "$tmp/got")" = 80 ] && [ "$(grep -c / "$tmp/got")" = $((2 * 623)) ] ||
    fail "the two best labellings: too few compared"
echo "raw: 80 labellings, 1,246 tokens: Wapiti's two best, byte for byte"
# the scores asked of the writer without the tokens' scores: an error
# naming the token and the option that gives them, and no partial line
expect_fail "token-scores true gives" "$CRFPIPE" tag --model "$tmp/raw.model" --format wapiti \
    --scores true -o "$tmp/ns.txt" "$tmp/test.txt"
[ ! -e "$tmp/ns.txt" ] || fail "a refused tagging left its output"

# --me: every line a sample, every observation a unigram "u"+field
bigram=wapiti-me check me 623 --reader-param maxent=true --reader-param labelled=true
"$CRFPIPE" model dump "$tmp/me.model" >"$tmp/dump"
grep -q "^meta	wapiti-me	true$" "$tmp/dump" && grep -q "^bigram=wapiti-me$" "$tmp/dump" ||
    fail "me: the import does not say --me"

# labelled=auto: the test data's last fields are labels; without them the
# lines are data to tag, and the tags are the same
sed 's/ [^ ]*$//' "$tmp/test.txt" >"$tmp/unlab.txt"
"$CRFPIPE" tag --model "$tmp/raw.model" --format wapiti -o "$tmp/u.txt" "$tmp/unlab.txt" ||
    fail "tag data without labels"
"$CRFPIPE" tag --model "$tmp/raw.model" --format wapiti -o "$tmp/l.txt" "$tmp/test.txt" 2>/dev/null ||
    fail "tag data with labels"
[ "$(cut -f2 "$tmp/u.txt")" = "$(cut -f2 "$tmp/l.txt")" ] && [ -s "$tmp/u.txt" ] ||
    fail "labelled=auto tags data without labels otherwise"

# --scores reaches the writer, which declares it too, unless --writer-param
# says otherwise
"$CRFPIPE" tag --model "$tmp/raw.model" --format wapiti --scores true --token-scores true \
    --writer-param scores=false -o "$tmp/nsc.txt" "$tmp/test.txt" 2>/dev/null || fail "scores=false"
! awk -F'\t' '/^# / || NF > 2 { found = 1 } END { exit !found }' "$tmp/nsc.txt" &&
    [ "$(cut -f2 "$tmp/nsc.txt")" = "$(cut -f2 "$tmp/l.txt")" ] ||
    fail "--writer-param scores=false did not win over --scores true"
# labels-only=true (wapiti label -l): the predictions alone
"$CRFPIPE" tag --model "$tmp/raw.model" --format wapiti --writer-param labels-only=true \
    -o "$tmp/lo.txt" "$tmp/test.txt" || fail "tag, labels only"
[ "$(cat "$tmp/lo.txt")" = "$(cut -f2 "$tmp/l.txt")" ] || fail "labels-only=true writes other labels"

# malformed data: refused with the file and line
printf 'ufoo bbar NOUN\nufoo xbar NOUN\n' >"$tmp/bad.txt"
expect_fail "bad.txt:2: field 2 'xbar' does not start with u, b or \*" \
    "$CRFPIPE" tag --model "$tmp/raw.model" --format wapiti "$tmp/bad.txt"
printf 'ufoo bbar\nufoo bbar NOUN\n' >"$tmp/bad.txt"
expect_fail "bad.txt:2: the last field 'NOUN' does not start with u, b or \* .* line 1" \
    "$CRFPIPE" tag --model "$tmp/raw.model" --format wapiti "$tmp/bad.txt"
expect_fail "labels cannot be told from them: give labelled=true or labelled=false" \
    "$CRFPIPE" tag --model "$tmp/me.model" --format wapiti --reader-param maxent=true "$tmp/test.txt"
expect_fail "'labelled': 'maybe' is not true, false or auto" \
    "$CRFPIPE" tag --model "$tmp/raw.model" --format wapiti --reader-param labelled=maybe \
    "$tmp/test.txt"
# data without its observations' kinds, to the attributes plugin in Wapiti's mode
printf 'NOUN\tw=dog\n\n' >"$tmp/cs.txt"
expect_fail "attribute 'w=dog' does not start with u, b or \*" \
    "$CRFPIPE" tag --model "$tmp/raw.model" --format crfsuite "$tmp/cs.txt"
expect_fail "sequence 1, token 1: no prediction to write" \
    "$CRFPIPE" convert --from wapiti --to wapiti "$tmp/test.txt"
expect_fail "bigram must be bias, all, none, wapiti or wapiti-me" \
    "$CRFPIPE" train --format wapiti --features attributes --feature-param bigram=some \
    --model "$tmp/x.model" "$tmp/train.txt"
finish
