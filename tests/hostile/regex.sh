# Catastrophic regular expressions in a template: bounded by regex-time in
# train and in tag (a model carries its template), named in the message.
. "$top_srcdir/tests/hostile/common.sh"

printf 'U00:%%x[0,form]\nU01:%%t[0,form,"(a+)+$"]\nB\n' > evil.tpl
a40=$(printf '%040d' 0 | tr 0 a)b
printf 'the DT B-NP\n%s NN I-NP\n\n' "$a40" > evil.conll
printf 'the DT B-NP\ncat NN I-NP\n\na DT B-NP\ndog NN I-NP\n\n' > ok.conll
cols='--columns form,pos,chunk'
run 30 1 'evil.tpl:2: regular expression too slow .*regex-time=1000.*--limit regex-time=' \
    --quiet train --template evil.tpl $cols --model e.model evil.conll
run 60 0 '' --quiet train --template evil.tpl $cols --max-iter 3 --model e.model ok.conll
run 30 1 'e.model:2: regular expression too slow .*regex-time=1000' \
    tag --model e.model $cols evil.conll -o out.conll
run 30 1 'e.model:2: .*regex-time=1000' tag --model e.model $cols --threads 2 evil.conll -o out.conll
[ -e out.conll ] && fail "tag left out.conll behind"
run 30 0 '' tag --model e.model $cols ok.conll -o out.conll
# A tighter stack limit is applied too (and named).
run 30 1 'regex-(time|stack)' --limit regex-stack=1k tag --model e.model $cols evil.conll -o out.conll
exit 0
