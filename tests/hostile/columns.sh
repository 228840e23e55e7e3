# Column files: out of memory is an error (not the end of the input), lines
# and sentences have limits, and blank-only input is zero documents.
. "$top_srcdir/tests/hostile/common.sh"

# A 100 MB line under a 150 MB address space: the old reader took getline's
# ENOMEM for end of file and exited 0 with a truncated output.
{ head -c 100000000 /dev/zero | tr '\0' a; printf ' B\n'; } > big.src
for fmt in conll conllu; do
    mv big.src big.$fmt
    # AddressSanitizer cannot start under ulimit -v: that part is for the
    # ordinary build.
    if ! ( ulimit -v 150000 && exec "$CRFPIPE" --version ) 2>&1 | grep -q Sanitizer; then
        rc=0
        ( ulimit -v 150000 && exec timeout 30 "$CRFPIPE" --limit line=0 convert --from $fmt \
            --to $fmt big.$fmt -o out.$fmt ) 2> err || rc=$?
        [ "$rc" = 1 ] || { cat err >&2; fail "$fmt: 100 MB line under ulimit -v: exit $rc, expected 1"; }
        grep -q "big.$fmt:1: out of memory" err || { cat err >&2; fail "$fmt: no 'out of memory' message"; }
        [ -e out.$fmt ] && fail "$fmt: output left behind"
    fi
    # With the default line limit, refused at once and by name.
    run 30 1 "big.$fmt:1: line longer than the limit line=1048576 .*--limit line=" \
        convert --from $fmt --to $fmt big.$fmt -o out.$fmt
    mv big.$fmt big.src
done
rm -f big.src

# Tokens per sentence.
awk 'BEGIN { for (i = 0; i < 20; i++) print "w" i " X" }' > long.conll
run 10 1 'long.conll:11: sentence longer than the limit sentence-tokens=10' \
    --limit sentence-tokens=10 convert --to conll long.conll -o out.conll
run 10 0 '' convert --to conll long.conll -o out.conll
u='_	_	_	_	0	root	_	_'
awk -v u="$u" 'BEGIN { for (i = 1; i <= 20; i++) print i "\tw" i "\t" u; print "" }' > long.conllu
run 10 1 'long.conllu:11: sentence longer than the limit sentence-tokens=10' \
    --limit sentence-tokens=10 convert --to conllu long.conllu -o out.conllu

# Blank-only input: zero documents, not an empty document that the tagger
# and writers then choke on (the message used to name the output file).
printf '\n\n' > blank.conll
printf '\n\n' > blank.conllu
printf 'the DT B-NP\ncat NN I-NP\n\na DT B-NP\ndog NN I-NP\n\n' > train.conll
run 60 0 '' --quiet train --template "$top_srcdir/tests/pipeline/tiny.tpl" --columns form,pos,chunk \
    --max-iter 3 --model m.model train.conll
run 10 0 '' tag --model m.model --columns form,pos,chunk blank.conll -o out.tagged
[ -s out.tagged ] && fail "tag blank.conll: output is not empty"
for f in blank.conll blank.conllu; do
    run 10 0 '' convert --to xml $f -o out.xml
    grep -q '<document' out.xml && fail "convert $f: wrote a document"
done
printf '\n\n' | timeout 10 "$CRFPIPE" tag --model m.model --columns form,pos,chunk > out.tagged 2> err ||
    { cat err >&2; fail "tag of blank stdin failed"; }
run 60 1 'blank.conll: no labelled sentences' --quiet train --template "$top_srcdir/tests/pipeline/tiny.tpl" \
    --columns form,pos,chunk --model m2.model blank.conll

# Messages quote the data: its control bytes (an escape sequence that would
# clear or retitle the terminal) are written \xHH, in warnings and errors.
printf 'a X\nb Y\n\n' > esc-train.conll
printf 'a X\nb \033[2JY\n\na X\n\n' > esc-dev.conll
printf 'U00:%%x[0,0]\nB\n' > esc.tpl
run 60 0 "label '\\\\x1b\\[2JY' unknown to the model" --quiet train --template esc.tpl --dev esc-dev.conll \
    --model esc.model esc-train.conll
run 60 1 "no label feature 'l\\\\x1b\\]0;x\\\\x07'" --quiet train --template esc.tpl \
    --label "$(printf 'l\033]0;x\007')" --model esc.model esc-train.conll
tr -d '\n' < err | grep -q "$(printf '\033')" && fail "a raw escape byte reached stderr"
exit 0
