#!/bin/sh
# G2P: lexicon readers, graphemes tokenizer, aligner, phonemes stage, PER/WER,
# and a tiny train + pronounce run on the shipped CMUdict excerpt.
. "$top_srcdir/tests/pipeline/common.sh"
P=$CRFPIPE
pipe() {   # pipe FILE STAGE-XML...: write a pipeline
    f=$1; shift
    { echo '<?xml version="1.0"?><pipeline xmlns="urn:crfpipe:pipeline:1">'
      for s in "$@"; do echo "$s"; done
      echo '</pipeline>'; } > "$f"
}

# 1. CMUdict: comments, variants, stress kept or stripped
cat > "$tmp/a.dict" <<'X'
;;; a comment
# another
read R EH1 D
read(2) R IY1 D
aalborg AO1 L B AO0 R G # place, danish
X
pipe "$tmp/keep.xml" '<stage plugin="lexicon_reader"/>' \
    '<stage plugin="lexicon_writer"><param name="feature" value="phonemes"/></stage>'
$P run "$tmp/keep.xml" -i "$tmp/a.dict" > "$tmp/out" || fail "cmudict read"
printf 'read R EH1 D\nread R IY1 D\naalborg AO1 L B AO0 R G\n' | cmp -s - "$tmp/out" ||
    { fail "cmudict with stress"; cat "$tmp/out" >&2; }
pipe "$tmp/strip.xml" '<stage plugin="lexicon_reader"><param name="stress" value="false"/><param name="variants" value="false"/></stage>' \
    '<stage plugin="lexicon_writer"><param name="feature" value="phonemes"/><param name="separator" value="tab"/></stage>'
$P run "$tmp/strip.xml" -i "$tmp/a.dict" > "$tmp/out" || fail "cmudict read (strip)"
printf 'read\tR EH D\naalborg\tAO L B AO R G\n' | cmp -s - "$tmp/out" ||
    { fail "cmudict without stress/variants"; cat "$tmp/out" >&2; }
printf 'good G UH1 D\nbad(x) B AE1 D\n' > "$tmp/bad.dict"
expect_fail "bad.dict:2: bad variant mark" $P run "$tmp/keep.xml" -i "$tmp/bad.dict"
printf 'good G UH1 D\nbad(99999999999999999999) B AE1 D\n' > "$tmp/big.dict"  # found by fuzz_lexicon
expect_fail "big.dict:2: bad variant mark" $P run "$tmp/keep.xml" -i "$tmp/big.dict"
printf 'good G UH1 D\nlonely\n' > "$tmp/bad2.dict"
pipe "$tmp/cmu.xml" '<stage plugin="lexicon_reader"><param name="format" value="cmudict"/></stage>' \
    '<stage plugin="lexicon_writer"><param name="feature" value="phonemes"/></stage>'
expect_fail "bad2.dict:2: CMUdict entry 'lonely' has no phonemes" $P run "$tmp/cmu.xml" -i "$tmp/bad2.dict"

# 2. NETtalk's aligned format (a made-up entry, not NETtalk data) and tsv
printf 'Header line\n\nabase\txbes-\t0>1<<\t0\n' > "$tmp/n.data"
pipe "$tmp/nt.xml" '<stage plugin="lexicon_reader"><param name="format" value="nettalk"/></stage>' \
    '<stage plugin="graphemes"/>' '<stage plugin="xml_writer"/>'
$P run "$tmp/nt.xml" -i "$tmp/n.data" > "$tmp/n.xml" || fail "nettalk read"
grep -q '<f name="phonemes">x b e s</f>' "$tmp/n.xml" || fail "nettalk phonemes"
grep -q '<f name="aligned">x b e s _</f>' "$tmp/n.xml" || fail "nettalk gold alignment"
printf 'abase\txbes-\t0>1<<\t0\nabate\txbet\t0\t0\n' > "$tmp/n2.data"
expect_fail "n2.data:2: NETtalk entry 'abate': 5 letters but 4" $P run "$tmp/nt.xml" -i "$tmp/n2.data"
# a multi-byte letter would be cut in two by the alignment; NUL bytes and
# lines over the `line` limit are errors too, never a silently cut entry
printf 'abase\txbes-\t0>1<<\t0\nab\303\251\txbeX\t0>1<\t0\n' > "$tmp/n3.data"
expect_fail "n3.data:2: NETtalk entry 'abé': a letter or phoneme that is not printable ASCII" \
    $P run "$tmp/nt.xml" -i "$tmp/n3.data"
printf 'good G UH1 D\nb\000d B AE1 D\n' > "$tmp/nul.dict"
expect_fail "nul.dict:2: NUL byte in line" $P run "$tmp/cmu.xml" -i "$tmp/nul.dict"
expect_fail "a.dict:1: line longer than the limit line=8 bytes" $P --limit line=8 run "$tmp/cmu.xml" -i "$tmp/a.dict"

# 3. graphemes: one Token per extended grapheme cluster, case folding
printf 'E\314\201t\303\251 \340\244\250\340\244\277 \355\225\234\n' > "$tmp/w.txt"  # É(e+U+0301)té नि 한
pipe "$tmp/g.xml" '<stage plugin="lexicon_reader"><param name="format" value="words"/></stage>' \
    '<stage plugin="graphemes"/>' '<stage plugin="xml_writer"/>'
$P run "$tmp/g.xml" -i "$tmp/w.txt" > "$tmp/g.out" || fail "graphemes"
n=$(grep -c 'type="Token"' "$tmp/g.out")
[ "$n" -eq 5 ] || fail "graphemes: $n tokens, expected 5 (e+acute, t, e-acute, ni, han)"
grep -q "<f name=\"letter\">e$(printf '\314\201')</f>" "$tmp/g.out" || fail "graphemes: E+U+0301 not folded to e+U+0301"
grep -q "<f name=\"letter\">$(printf '\340\244\250\340\244\277')</f>" "$tmp/g.out" || fail "graphemes: Devanagari cluster split"

# 4. aligner: trained, saved, reused; phonemes stage undoes the labels exactly
head -400 "$top_srcdir/samples/g2p/train.dict" > "$tmp/lex.dict"
pipe "$tmp/al.xml" '<stage plugin="lexicon_reader"/>' '<stage plugin="graphemes"/>' \
    "<stage plugin=\"aligner\"><param name=\"lexicon\" value=\"$tmp/lex.dict\"/><param name=\"model\" value=\"$tmp/m.align\"/></stage>" \
    '<stage plugin="phonemes"><param name="input" value="phone"/></stage>' \
    '<stage plugin="evaluate"><param name="errors" value="true"/></stage>'
$P run "$tmp/al.xml" -i "$tmp/lex.dict" > "$tmp/rt" 2>"$tmp/err" || { fail "aligner"; cat "$tmp/err" >&2; }
grep -q "phoneme error rate:   0.00%" "$tmp/rt" || { fail "labels -> phonemes is not the identity"; cat "$tmp/rt" >&2; }
grep -q "^# crfpipe aligner model 1" "$tmp/m.align" || fail "no alignment model saved"
pipe "$tmp/al2.xml" '<stage plugin="lexicon_reader"/>' '<stage plugin="graphemes"/>' \
    "<stage plugin=\"aligner\"><param name=\"model\" value=\"$tmp/m.align\"/></stage>" '<stage plugin="xml_writer"/>'
pipe "$tmp/al3.xml" '<stage plugin="lexicon_reader"/>' '<stage plugin="graphemes"/>' \
    "<stage plugin=\"aligner\"><param name=\"lexicon\" value=\"$tmp/lex.dict\"/></stage>" '<stage plugin="xml_writer"/>'
$P run "$tmp/al2.xml" -i "$tmp/lex.dict" > "$tmp/x2" 2>/dev/null || fail "aligner with a saved model"
$P run "$tmp/al3.xml" -i "$tmp/lex.dict" > "$tmp/x3" 2>/dev/null || fail "aligner trained in place"
cmp -s "$tmp/x2" "$tmp/x3" || fail "the saved alignment model does not reproduce the alignment"
# 'accept' = a/AE c/K c/S e/EH p/P t/T (two c, two phonemes)
grep -q '<f name="phone">K</f>' "$tmp/x2" || fail "no K label"
grep -q '<f name="phone">_</f>' "$tmp/x2" || fail "no null label"
echo "not a model" > "$tmp/bad.align"
pipe "$tmp/al4.xml" '<stage plugin="lexicon_reader"/>' '<stage plugin="graphemes"/>' \
    "<stage plugin=\"aligner\"><param name=\"model\" value=\"$tmp/bad.align\"/></stage>"
expect_fail "bad.align:1: not an aligner model" $P run "$tmp/al4.xml" -i "$tmp/lex.dict"
# a model file is hostile input: every line is checked, by file and line
bad_model() {  # bad_model MESSAGE LINE...: a model of the header and LINEs must be refused
    msg=$1; shift
    { echo "# crfpipe aligner model 1"; for l in "$@"; do printf '%b\n' "$l"; done; } > "$tmp/bad.align"
    expect_fail "$msg" $P run "$tmp/al4.xml" -i "$tmp/lex.dict"
}
bad_model "bad.align:3: a chunk is one or two symbols" 'ignore-stress true' 'pair\ta  b\tK\t0.5'
bad_model "bad.align:2: a chunk is one or two symbols" 'pair\ta\tK S T\t0.5'
bad_model "bad.align:2: a chunk is one or two symbols" 'pair\t\tK\t0.5'
bad_model "bad.align:2: bad probability 'nan'" 'pair\ta\tK\tnan'
bad_model "bad.align:2: ignore-stress is true or false, not 'yes'" 'ignore-stress yes'
bad_model "bad.align:2: expected 'key value' or a pair line" 'fold true extra'
bad_model "bad.align:3: NUL byte in line" 'pair\ta\tK\t0.5' 'pair\tb\0\tB\t0.5'
bad_model "bad.align:2: invalid UTF-8" 'pair\t\0377\tK\t0.5'
bad_model "bad.align: the model has no pairs" 'ignore-stress false'

# 5. PER / WER by hand: one substitution in 3 phonemes, one word right
printf '<?xml version="1.0"?>\n<corpus xmlns="urn:crfpipe:corpus:1"><document id="d"><text>cat\ndog</text><annotations>
<a id="1" type="Sentence" start="0" end="3"><f name="word">cat</f><f name="phonemes">K AE T</f><f name="pronunciation">K AH T</f></a>
<a id="2" type="Sentence" start="4" end="7"><f name="word">dog</f><f name="phonemes">D AO G</f><f name="pronunciation">D AO G</f></a>
</annotations></document></corpus>\n' > "$tmp/s.xml"
$P eval "$tmp/s.xml" > "$tmp/ev" || fail "eval of pronunciations"
grep -q "phoneme error rate:  16.67%" "$tmp/ev" || { fail "PER"; cat "$tmp/ev" >&2; }
grep -q "word error rate:     50.00%" "$tmp/ev" || { fail "WER"; cat "$tmp/ev" >&2; }

# 6. train a tiny tagger and pronounce
head -300 "$top_srcdir/samples/g2p/train.dict" > "$tmp/t.dict"
pipe "$tmp/tr.xml" '<stage plugin="lexicon_reader"><param name="stress" value="false"/></stage>' \
    '<stage plugin="graphemes"/>' \
    "<stage plugin=\"aligner\"><param name=\"lexicon\" value=\"$tmp/t.dict\"/><param name=\"model\" value=\"$tmp/t.align\"/></stage>" \
    "<stage plugin=\"templates\"><param name=\"template\" value=\"$top_srcdir/samples/g2p/g2p.tpl\"/></stage>" \
    "<stage plugin=\"lbfgs\"><param name=\"model\" value=\"$tmp/g.model\"/><param name=\"label\" value=\"phone\"/><param name=\"max-iter\" value=\"15\"/></stage>"
$P run "$tmp/tr.xml" -i "$tmp/t.dict" 2>"$tmp/err" || { fail "training"; cat "$tmp/err" >&2; }
sed -e "s|g2p.model|$tmp/g.model|" -e "s|train.dict|$tmp/t.dict|" -e "s|g2p.align|$tmp/t.align|" \
    "$top_srcdir/samples/g2p/pronounce.xml" > "$tmp/pr.xml"
echo "abated accept" | $P run "$tmp/pr.xml" > "$tmp/pr" || fail "pronounce"
grep -Eq '^abated( [A-Z]+)+$' "$tmp/pr" || { fail "no ARPAbet for abated"; cat "$tmp/pr" >&2; }
grep -Eq '^accept( [A-Z]+)+$' "$tmp/pr" || fail "no ARPAbet for accept"

# 7. an entry no alignment fits (3 phonemes on one letter): joined labels by
# default; with unaligned=none it gets none, and training fails on it unless
# run with unlabelled=skip, which leaves it out and says how many
{ head -120 "$top_srcdir/samples/g2p/train.dict"; echo "x EH K S S"; } > "$tmp/u.dict"
un_pipe() { # FILE UNALIGNED UNLABELLED
    pipe "$1" '<stage plugin="lexicon_reader"><param name="stress" value="false"/></stage>' \
        '<stage plugin="graphemes"/>' \
        "<stage plugin=\"aligner\"><param name=\"lexicon\" value=\"$tmp/u.dict\"/><param name=\"unaligned\" value=\"$2\"/></stage>" \
        "<stage plugin=\"templates\"><param name=\"template\" value=\"$top_srcdir/samples/g2p/g2p.tpl\"/></stage>" \
        "<stage plugin=\"lbfgs\"><param name=\"model\" value=\"$tmp/u.model\"/><param name=\"label\" value=\"phone\"/><param name=\"max-iter\" value=\"3\"/><param name=\"unlabelled\" value=\"$3\"/></stage>"
}
un_pipe "$tmp/u1.xml" join error
$P --verbose run "$tmp/u1.xml" -i "$tmp/u.dict" 2>"$tmp/err" || { fail "training with a joined fallback"; cat "$tmp/err" >&2; }
grep -q "1 by the fallback" "$tmp/err" || { fail "fallback not counted"; cat "$tmp/err" >&2; }
$P model dump "$tmp/u.model" 2>/dev/null | grep -q "EH:K:S:S" || fail "the joined fallback label is not a label of the model"
un_pipe "$tmp/u2.xml" none error
expect_fail "unlabelled=skip leaves such sentences out" $P run "$tmp/u2.xml" -i "$tmp/u.dict"
un_pipe "$tmp/u3.xml" none skip
$P --verbose run "$tmp/u3.xml" -i "$tmp/u.dict" 2>"$tmp/err" || { fail "training with unlabelled=skip"; cat "$tmp/err" >&2; }
grep -q "1 left unlabelled" "$tmp/err" || { fail "unlabelled entry not counted by the aligner"; cat "$tmp/err" >&2; }
grep -q "unlabelled=skip: left out 1 training and 0 dev sentences" "$tmp/err" ||
    { fail "skipped sentence not reported"; cat "$tmp/err" >&2; }
grep -q "training: 120 sequences" "$tmp/err" || { fail "not 120 training sequences"; grep training: "$tmp/err" >&2; }
$P model dump "$tmp/u.model" 2>/dev/null | grep -q "EH:K:S:S" && fail "the skipped entry's label reached the model"
un_pipe "$tmp/u4.xml" none maybe
expect_fail "unlabelled must be error or skip" $P run "$tmp/u4.xml" -i "$tmp/u.dict"
# 8. n-best re-ranking with n-gram models (lm_rescore).  Weight 0 keeps the
# tagger's best; a phoneme or joint model trained on the very pronunciations
# being scored lifts the right one whenever the n-best list holds it, so WER
# must fall; saved models load back to the same choices; missing scores,
# bad weights, a joint model without its alignment and a foreign model file
# are refused.
head -80 "$top_srcdir/samples/g2p/test.dict" > "$tmp/e.dict"
rd='<stage plugin="lexicon_reader"><param name="stress" value="false"/></stage>'
vt="<stage plugin=\"viterbi\"><param name=\"model\" value=\"$tmp/g.model\"/><param name=\"nbest\" value=\"8\"/><param name=\"scores\" value=\"true\"/></stage>"
lm() { echo "<stage plugin=\"lm_rescore\">$1<param name=\"weight\" value=\"$2\"/></stage>"; }
pipe "$tmp/b.xml" "$rd" '<stage plugin="graphemes"/>' \
    "<stage plugin=\"viterbi\"><param name=\"model\" value=\"$tmp/g.model\"/></stage>" \
    '<stage plugin="phonemes"/>' '<stage plugin="evaluate"/>'
pipe "$tmp/w0.xml" "$rd" '<stage plugin="graphemes"/>' "$vt" \
    "$(lm "<param name=\"lexicon\" value=\"$tmp/t.dict\"/>" 0)" '<stage plugin="phonemes"/>' \
    '<stage plugin="evaluate"/>'
pipe "$tmp/wg.xml" "$rd" '<stage plugin="graphemes"/>' "$vt" \
    "$(lm "<param name=\"lexicon\" value=\"$tmp/e.dict\"/><param name=\"model\" value=\"$tmp/e.lm\"/><param name=\"order\" value=\"4\"/>" 5)" \
    '<stage plugin="phonemes"/>' '<stage plugin="evaluate"/>'
pipe "$tmp/wl.xml" "$rd" '<stage plugin="graphemes"/>' "$vt" \
    "$(lm "<param name=\"model\" value=\"$tmp/e.lm\"/>" 5)" '<stage plugin="phonemes"/>' \
    '<stage plugin="xml_writer"/>'
$P run "$tmp/b.xml" -i "$tmp/e.dict" > "$tmp/ev.b" 2>"$tmp/err" || { fail "1-best eval"; cat "$tmp/err" >&2; }
$P run "$tmp/w0.xml" -i "$tmp/e.dict" > "$tmp/ev.0" 2>"$tmp/err" || { fail "lm_rescore weight 0"; cat "$tmp/err" >&2; }
cmp -s "$tmp/ev.b" "$tmp/ev.0" || { fail "weight 0 changed the pronunciations"; cat "$tmp/ev.b" "$tmp/ev.0" >&2; }
$P run "$tmp/wg.xml" -i "$tmp/e.dict" > "$tmp/ev.g" 2>"$tmp/err" || { fail "lm_rescore, trained"; cat "$tmp/err" >&2; }
werof() { sed -n 's/^word error rate: *\([0-9.]*\)%.*/\1/p' "$1"; }
wb=$(werof "$tmp/ev.b") wg=$(werof "$tmp/ev.g")
awk -v b="$wb" -v g="$wg" 'BEGIN { exit !(g + 10 < b) }' ||
    fail "an LM of the answers should cut WER by 10 points: $wb % -> $wg %"
$P run "$tmp/wl.xml" -i "$tmp/e.dict" > "$tmp/wl.out" 2>"$tmp/err" || { fail "lm_rescore, loaded"; cat "$tmp/err" >&2; }
grep -q '<f name="lm-rank" type="int">[2-8]</f>' "$tmp/wl.out" || fail "no word took a lower-ranked labelling"
sed -i 's|<stage plugin="xml_writer"/>|<stage plugin="evaluate"/>|' "$tmp/wl.xml"
$P run "$tmp/wl.xml" -i "$tmp/e.dict" > "$tmp/ev.l" || fail "lm_rescore, loaded, eval"
cmp -s "$tmp/ev.g" "$tmp/ev.l" || { fail "the saved model chooses differently"; cat "$tmp/ev.g" "$tmp/ev.l" >&2; }
# the joint letter|label model (alignment: the tagger's aligner model) alone
pipe "$tmp/wj.xml" "$rd" '<stage plugin="graphemes"/>' "$vt" \
    "$(lm "<param name=\"lexicon\" value=\"$tmp/e.dict\"/><param name=\"alignment\" value=\"$tmp/t.align\"/><param name=\"joint-model\" value=\"$tmp/e.jlm\"/><param name=\"joint-weight\" value=\"5\"/>" 0)" \
    '<stage plugin="phonemes"/>' '<stage plugin="evaluate"/>'
$P run "$tmp/wj.xml" -i "$tmp/e.dict" > "$tmp/ev.j" 2>"$tmp/err" || { fail "lm_rescore, joint"; cat "$tmp/err" >&2; }
wj=$(werof "$tmp/ev.j"); echo "WER 1-best $wb, phoneme LM $wg, joint LM $wj" >&2
awk -v b="$wb" -v g="$wj" 'BEGIN { exit !(g + 10 < b) }' ||
    fail "a joint model of the answers should cut WER by 10 points: $wb % -> $wj %"
pipe "$tmp/wjl.xml" "$rd" '<stage plugin="graphemes"/>' "$vt" \
    "$(lm "<param name=\"joint-model\" value=\"$tmp/e.jlm\"/><param name=\"joint-weight\" value=\"5\"/>" 0)" \
    '<stage plugin="phonemes"/>' '<stage plugin="evaluate"/>'
$P run "$tmp/wjl.xml" -i "$tmp/e.dict" > "$tmp/ev.jl" || fail "lm_rescore, joint, loaded"
cmp -s "$tmp/ev.j" "$tmp/ev.jl" || { fail "the saved joint model chooses differently"; cat "$tmp/ev.j" "$tmp/ev.jl" >&2; }
pipe "$tmp/na.xml" "$rd" "$(lm "<param name=\"lexicon\" value=\"$tmp/e.dict\"/><param name=\"joint-model\" value=\"$tmp/x.jlm\"/>" 1)"
expect_fail "training the joint model needs 'alignment'" $P run "$tmp/na.xml" -i "$tmp/e.dict"
pipe "$tmp/ns.xml" "$rd" '<stage plugin="graphemes"/>' \
    "<stage plugin=\"viterbi\"><param name=\"model\" value=\"$tmp/g.model\"/><param name=\"nbest\" value=\"3\"/></stage>" \
    "$(lm "<param name=\"model\" value=\"$tmp/e.lm\"/>" 1)"
expect_fail "word 1: no list 'predicted-scores' of n-best scores" $P run "$tmp/ns.xml" -i "$tmp/e.dict"
pipe "$tmp/bw.xml" "$rd" "$(lm "<param name=\"model\" value=\"$tmp/e.lm\"/>" -1)"
expect_fail "weight and joint-weight must be between 0 and 100" $P run "$tmp/bw.xml" -i "$tmp/e.dict"
pipe "$tmp/nm.xml" "$rd" "$(lm "<param name=\"model\" value=\"$tmp/g.model\"/>" 1)"
expect_fail "g.model:1: not a phoneme n-gram model" $P run "$tmp/nm.xml" -i "$tmp/e.dict"
finish
