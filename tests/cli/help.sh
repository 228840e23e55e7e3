#!/bin/sh
# Help everywhere: `crfpipe CMD --help` and `crfpipe help CMD` agree for every
# command, name every option the command's source parses, and show the
# parameters the plugins declare with their declared defaults; typos get
# the nearest valid option, command or plugin.
. "$top_srcdir/tests/pipeline/common.sh"
awkdir="$top_srcdir/tests/cli"

cmds=$("$CRFPIPE" help --commands)
[ "$(echo "$cmds" | wc -l)" -ge 9 ] || fail "help --commands lists too few commands: $cmds"
"$CRFPIPE" help >"$tmp/general" || fail "crfpipe help"
"$CRFPIPE" --help | cmp -s - "$tmp/general" || fail "crfpipe --help differs from crfpipe help"
for c in $cmds; do
    "$CRFPIPE" "$c" --help >"$tmp/a" 2>"$tmp/err" || { fail "$c --help failed"; cat "$tmp/err" >&2; }
    [ -s "$tmp/err" ] && fail "$c --help wrote to stderr"
    "$CRFPIPE" help "$c" >"$tmp/b" || fail "help $c failed"
    "$CRFPIPE" "$c" -h >"$tmp/c" || fail "$c -h failed"
    cmp -s "$tmp/a" "$tmp/b" || fail "$c --help and help $c differ"
    cmp -s "$tmp/a" "$tmp/c" || fail "$c --help and $c -h differ"
    grep -q "^usage: crfpipe $c " "$tmp/a" || fail "$c --help: no usage line"
    grep -q "^  $c " "$tmp/general" || fail "crfpipe help does not list $c"
    # every option the command's sources parse is listed (cmd_C.c, and
    # C_ACTION.c for the actions of a command such as model)
    for src in "$top_srcdir/core/cli/cmd_$c.c" "$top_srcdir/core/cli/${c}_"*.c; do
        [ -f "$src" ] || continue
        for o in $(grep -o 'cli_opt([^;]*"[a-z][a-z-]*"' "$src" | sed 's/.*"\([a-z-]*\)"$/\1/' | sort -u); do
            grep -q -- "--$o[ ,=]" "$tmp/a" || grep -q -- "--$o\$" "$tmp/a" ||
                fail "$c: option --$o is parsed by $src but not in its --help"
        done
        for o in $(grep -o 'strcmp(argv\[i\], "-[-a-z]*")' "$src" | sed 's/.*"\(-[-a-z]*\)")$/\1/' | sort -u); do
            case $o in --help | -h | --) continue ;; esac
            grep -q -- "$o[ ,]" "$tmp/a" || grep -q -- "$o\$" "$tmp/a" ||
                fail "$c: option $o is parsed by $src but not in its --help"
        done
    done
    # --options (for the completion) gives the same names as the help
    awk -f "$awkdir/helpopts.awk" "$tmp/a" | { grep -v '^Global options' || true; } | cut -f2 | sort -u >"$tmp/x"
    "$CRFPIPE" help --options "$c" | sort -u >"$tmp/y"
    cmp -s "$tmp/x" "$tmp/y" || fail "help --options $c differs from the options of $c --help"
done

# Stage parameters come from the plugins' declarations: every parameter of
# every trainer, with its declared default, in train --trainer T --help; the
# tagger's in tag --help.
# declared PLUGIN: "name<tab>default" rows of `crfpipe plugins PLUGIN`
declared() {
    "$CRFPIPE" plugins "$1" | awk '
        /^  NAME / { d = index($0, "DEFAULT"); h = index($0, "HELP"); on = 1; next }
        on && /^  / { n = $1; v = substr($0, d, h - d); sub(/ +$/, "", v)
                      print n "\t" v }'
}
check_declared() { # PLUGIN HELPFILE
    declared "$1" >"$tmp/decl"
    [ -s "$tmp/decl" ] || { fail "crfpipe plugins $1 lists no parameter"; return; }
    awk -f "$awkdir/helpopts.awk" "$2" >"$tmp/rows"
    while IFS="$(printf '\t')" read -r name def; do
        case $name in output | posteriors | force) [ "$1" = viterbi ] && continue ;; esac
        row=$(awk -F'\t' -v n="--$name" '$2 == n { r = $0 } END { print r }' "$tmp/rows")
        [ -n "$row" ] || { fail "$1: parameter $name missing from the help"; continue; }
        shown=$(printf '%s\n' "$row" | cut -f3)
        # "-" is a parameter without default; "" shows as ""
        [ "$def" = "-" ] && def=""
        [ -z "$def" ] && [ -n "$shown" ] && [ "$shown" != '""' ] && continue # said in words
        [ "$def" = "$shown" ] || [ -z "$def" -a "$shown" = '""' ] ||
            fail "$1: parameter $name declares default '$def', the help shows '$shown'"
    done <"$tmp/decl"
}
for t in lbfgs sgd-l1 perceptron; do
    "$CRFPIPE" train --trainer "$t" --help >"$tmp/t" || fail "train --trainer $t --help"
    check_declared "$(echo "$t" | tr - _)" "$tmp/t"
done
"$CRFPIPE" tag --help >"$tmp/t" || fail "tag --help"
check_declared viterbi "$tmp/t"
# sgd-l1 gives the common rho1 its own default, and the help says so
"$CRFPIPE" train --trainer sgd-l1 --help | awk -f "$awkdir/helpopts.awk" |
    awk -F'\t' '$2 == "--rho1" { d = $3 } END { exit d != "0.6" }' || fail "sgd-l1's rho1 default not shown"
# a chain shows both trainers' sections and explains --NAME.PARAM
"$CRFPIPE" train --trainer sgd-l1,lbfgs --help >"$tmp/t"
grep -q "^Options of trainer sgd_l1" "$tmp/t" && grep -q "^Options of trainer lbfgs" "$tmp/t" ||
    fail "chain help lacks a trainer's section"
grep -q -- "--NAME.PARAM" "$tmp/t" || fail "chain help does not explain --NAME.PARAM"
# convert lists the parameters of the reader and writer chosen
"$CRFPIPE" convert --from conll --to xml --help >"$tmp/t"
grep -q "^Parameters of reader conll_reader" "$tmp/t" && grep -q "^  docstart=BOOL" "$tmp/t" ||
    fail "convert --from conll --help lacks the reader's parameters"
# tag --to FORMAT (and --format FORMAT) --help lists the writer's (reader's)
# parameters, given with --writer-param (--reader-param)
"$CRFPIPE" tag --format wapiti --to crfpp --help >"$tmp/t"
grep -q "^Parameters of writer crfpp_writer, given as --writer-param" "$tmp/t" &&
    grep -q "^  verbose=N " "$tmp/t" && grep -q "^Parameters of reader wapiti_reader" "$tmp/t" ||
    fail "tag --format wapiti --to crfpp --help lacks the reader's or the writer's parameters"

# Suggestions: the nearest option, command, plugin.
expect_fail "unknown option '--rho'; did you mean '--rho1'" "$CRFPIPE" train --rho 0.5 x
expect_fail "did you mean '--template'" "$CRFPIPE" train --templat x --model m x
expect_fail "did you mean '--lbfgs.history'" "$CRFPIPE" train --lbfgs.histroy 3 --model m x
expect_fail "did you mean '--eta0'" "$CRFPIPE" train --trainer sgd-l1 --eta 1 --model m x
expect_fail "did you mean '--nbest'" "$CRFPIPE" tag --nbset 3 --model m x
# the other tools' training options get crfpipe's spelling, not a guess
expect_fail "unknown option '-a': the optimizer is --trainer NAME" "$CRFPIPE" train -a rprop x
expect_fail "unknown option '--algo=rprop': the optimizer is --trainer NAME" "$CRFPIPE" train \
    --algo=rprop x
expect_fail "crf_learn -c C is --rho2 1/C" "$CRFPIPE" train -c 4 x
expect_fail "wapiti train -e E and crf_learn -e E are --epsilon E" "$CRFPIPE" train -e 1e-3 x
expect_fail "the iteration limit --max-iter N (crf_learn -m)" "$CRFPIPE" train -m 100 x
expect_fail "the development set is --dev FILE" "$CRFPIPE" train --devel d x
expect_fail "crf_learn -H N is --shrinking-size N" "$CRFPIPE" train -H 2 x
expect_fail "unknown option '-v1': crf_test -v1 is --posteriors --to crfpp" "$CRFPIPE" tag \
    --model m -v1 x
expect_fail "crf_test -n N and wapiti label -n N are --nbest N" "$CRFPIPE" tag --model m -n 2 x
expect_fail "wapiti label -p is --decode posterior" "$CRFPIPE" tag --model m -p x
expect_fail "did you mean '--label'" "$CRFPIPE" eval --lable x y
expect_fail "did you mean '--from'" "$CRFPIPE" convert --form conll --to xml
expect_fail "did you mean '--schema'" "$CRFPIPE" validate --schem document x
expect_fail "did you mean '--input'" "$CRFPIPE" run --inptu x p.xml
expect_fail "did you mean '--names'" "$CRFPIPE" plugins --name
expect_fail "did you mean 'train'" "$CRFPIPE" trian
expect_fail "did you mean 'lbfgs'" "$CRFPIPE" train --trainer lbgfs --template t --model m x
expect_fail "did you mean 'viterbi'" "$CRFPIPE" tag --tagger vitterbi --model m x
expect_fail "did you mean 'perceptron'" "$CRFPIPE" plugins perceptorn
# nothing close: no wild guess
! "$CRFPIPE" train --zzzzzzzz 1 x 2>"$tmp/err" || fail "unknown option accepted"
grep -q "unknown option '--zzzzzzzz'" "$tmp/err" || fail "no unknown-option message"
grep -q "did you mean" "$tmp/err" && fail "suggested something for --zzzzzzzz"
# usage errors exit with 2
rc=0
"$CRFPIPE" tag --nbset 3 x 2>/dev/null || rc=$?
[ $rc -eq 2 ] || fail "unknown option: exit status $rc, not 2"

# plugins --names / --formats / --kind (used by the completion)
"$CRFPIPE" plugins --names --kind trainer | sort >"$tmp/t"
printf 'lbfgs\nperceptron\nsgd_l1\n' | comm -23 - "$tmp/t" | grep -q . && fail "plugins --names --kind trainer misses a trainer"
"$CRFPIPE" plugins --names --kind trainer | grep -q viterbi && fail "--kind trainer lists the tagger"
for f in conll conllu xml; do
    "$CRFPIPE" plugins --formats --kind reader | grep -qx "$f" ||
        fail "plugins --formats --kind reader lacks $f: $("$CRFPIPE" plugins --formats --kind reader | tr '\n' ' ')"
done
"$CRFPIPE" plugins --formats --kind writer | grep -qx report || fail "plugins --formats: no report writer"
finish
