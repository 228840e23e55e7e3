# Bad inputs: exit status 1, a message naming file:line, and no output file
# (nor temporary) left behind.
. "$top_srcdir/tests/conll/common.sh"

# expect_fail PATTERN ARGS... : crfpipe convert must exit 1, print PATTERN
# on stderr, and leave no out.* in $work.
expect_fail() {
    pattern=$1
    shift
    rc=0
    "$CRFPIPE" convert "$@" 2> "$work/err" || rc=$?
    [ "$rc" = 1 ] || fail "convert $*: exit status $rc, expected 1"
    grep -q -- "$pattern" "$work/err" || {
        cat "$work/err" >&2
        fail "convert $*: message lacks '$pattern'"
    }
    for f in "$work"/out*; do
        [ -e "$f" ] && fail "convert $*: left $f behind"
    done
    return 0
}

printf 'a B c\nd E f\n\ng h\n' > "$work/ragged.conll"
expect_fail 'ragged.conll:4:' --from conll --to conll "$work/ragged.conll" "$work/out.conll"

printf 'a B\n\377\376 C\n' > "$work/utf8.conll"
expect_fail 'utf8.conll:2:.*UTF-8' --to xml "$work/utf8.conll" -o "$work/out.xml"

printf 'a B\nc\000 D\n' > "$work/nul.conll"
expect_fail 'nul.conll:2:.*NUL' --to conll "$work/nul.conll" "$work/out.conll"

# Too many names for the columns present.
printf 'a B\n' > "$work/two.conll"
expect_fail 'two.conll:1:' --to conll --columns word,pos,chunk "$work/two.conll" "$work/out.conll"

u='_	_	_	_	0	root	_	_'
printf '# text = a b\n1\ta\t%s\n3\tb\t%s\n\n' "$u" "$u" > "$work/badid.conllu"
expect_fail "badid.conllu:3:.*bad ID '3'" --to conllu "$work/badid.conllu" "$work/out.conllu"

printf '1\ta\t%s\n1-x\tb\t%s\n\n' "$u" "$u" > "$work/badrange.conllu"
expect_fail "badrange.conllu:2:.*bad ID" --to conllu "$work/badrange.conllu" "$work/out.conllu"

printf '1\ta\t%s\n2\tb\t_\t_\n\n' "$u" > "$work/cols.conllu"
expect_fail 'cols.conllu:2:.*4 tab-separated fields' --to conllu "$work/cols.conllu" "$work/out.conllu"

expect_fail "$work/missing.conll" --to conll "$work/missing.conll" "$work/out.conll"

# An error after good documents were written still leaves no output.
{ cat "$top_srcdir/tests/conll/docstart.conll"; printf 'x y\n'; } > "$work/late.conll"
expect_fail 'late.conll:30:' --to conll "$work/late.conll" "$work/out.conll"

# A value the column format cannot hold.
printf 'a b\n' > "$work/ok.conll"
expect_fail 'no feature' --to conll --writer-param strict=true \
    --writer-param columns=word,label,missing "$work/ok.conll" "$work/out.conll"
exit 0
