#!/bin/sh
# Incremental feature sets ('#!after ID PREREQ' in a template): held back in
# the first trainer of a chain, admitted between stages where, at the same
# token, the prerequisite's observation is active.  Made-up data.
. "$top_srcdir/tests/pipeline/common.sh"
P=$CRFPIPE

# Tokens alternate between an informative cue (the label itself) with words
# a0..a4, and the uninformative cue "none" with words q0..q2 (labels
# balanced): under a strong l1 penalty only the cues A and B are active, so
# the a-words are admitted and the q-words stay held.
awk 'BEGIN { for (s = 0; s < 60; s++) { for (t = 0; t < 4; t++) { i = s * 4 + t
    if (t % 2 == 0) { y = (int(i / 2) % 3 == 0) ? "A" : "B"; print "a" (i % 5), y, y }
    else { y = (int(i / 4) % 2 == 0) ? "A" : "B"; print "q" (i % 3), "none", y } }
    print "" } }' > "$tmp/d.txt"
printf 'U00:bias\n*01:%%x[0,cue]\n*02:%%x[0,word]\n#!after *02 *01\n' > "$tmp/inc.tpl"
T="$P train --template $tmp/inc.tpl --columns word,cue,label --rho1 2"

$T --trainer lbfgs,lbfgs --1.max-iter 30 --2.max-iter 5 --model "$tmp/m2" "$tmp/d.txt" \
    > "$tmp/log" 2>&1 || { fail "chained training"; cat "$tmp/log" >&2; }
grep -q "8 of 12 observations held back" "$tmp/log" || { fail "held back: expected 8 of 12"; cat "$tmp/log" >&2; }
grep -q "5 observations admitted, 3 still held back" "$tmp/log" ||
    { fail "admission: expected the 5 a-words in, the 3 q-words held"; cat "$tmp/log" >&2; }
# the model keeps the directive and tags with it
$P model dump "$tmp/m2" | grep -q '^#!after \*02 \*01' || fail "model lost the directive"
$P tag --model "$tmp/m2" --columns word,cue,label "$tmp/d.txt" > "$tmp/tagged" 2>"$tmp/err" ||
    { fail "tagging with the model"; cat "$tmp/err" >&2; }

# one trainer: nothing is ever admitted, and the user is told so
$T --max-iter 30 --model "$tmp/m1" "$tmp/d.txt" > "$tmp/log1" 2>&1 || fail "single stage"
grep -q "only a chain of trainers" "$tmp/log1" || fail "single stage: no warning"
$P model dump "$tmp/m1" | grep -q '^[UB]	\*02:' && fail "single stage: a held observation has weights"

# a letter task where the admitted trigrams then carry weight (the NETtalk use)
awk 'BEGIN { n = split("blick dax fep gorp kiv lum mib nop pim quaz rilt sneb", w, " ")
    for (r = 0; r < 4; r++) for (i = 1; i <= n; i++) { L = length(w[i])
        for (j = 1; j <= L; j++) { c = substr(w[i], j, 1); p = c
            if (c == "a") p = "@"; if (c == "i") p = "I"; if (c == "b" && j == L) p = "p"
            print c, p }
        print "" } }' > "$tmp/l.txt"
printf 'B\n*01:%%x[0,letter]\n*03:%%x[-1,letter]/%%x[0,letter]/%%x[1,letter]\n#!after *03 *01\n' > "$tmp/l.tpl"
$P train --template "$tmp/l.tpl" --columns letter,phone --trainer sgd-l1,lbfgs --rho1 0.1 \
    --model "$tmp/ml" "$tmp/l.txt" > "$tmp/logl" 2>&1 || { fail "letters chain"; cat "$tmp/logl" >&2; }
grep -q "observations admitted" "$tmp/logl" || fail "letters: no admission"
$P model dump "$tmp/ml" | grep -q '^[UB]	\*03:' || fail "letters: no admitted trigram has a weight"

# errors name the template line
bad() {  # bad PATTERN TEMPLATE-TEXT
    printf "$2" > "$tmp/bad.tpl"
    expect_fail "$1" $P train --template "$tmp/bad.tpl" --columns word,cue,label --model "$tmp/x" "$tmp/d.txt"
}
bad "bad.tpl:3: '#!after': no pattern has the identifier 'U9'" '*01:%%x[0,cue]\n*02:%%x[0,word]\n#!after *02 U9\n'
bad "bad.tpl:2: '#!after': a pattern cannot wait for itself" '*02:%%x[0,word]\n#!after *02 *02\n'
bad "waits for itself through a cycle" '*01:%%x[0,cue]\n*02:%%x[0,word]\n#!after *02 *01\n#!after *01 *02\n'
bad "bad.tpl:3: '#!after': 'B' is a constant pattern" 'B\n*02:%%x[0,word]\n#!after *02 B\n'
bad "bad.tpl:5: '#!after': pattern '\*02' already has a prerequisite" 'U00:bias\n*01:%%x[0,cue]\n*02:%%x[0,word]\n#!after *02 *01\n#!after *02 U00\n' 
bad "needs two pattern identifiers" '*02:%%x[0,word]\n#!after *02\n'
finish
