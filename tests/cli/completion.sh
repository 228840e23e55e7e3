#!/bin/sh
# The bash completion script completes commands, options (those of the
# trainer named on the line included), plugin names and formats, by asking
# crfpipe itself.
[ -n "${BASH_VERSION:-}" ] || { command -v bash >/dev/null 2>&1 && exec bash "$0" "$@"; echo "no bash"; exit 77; }
. "$top_srcdir/tests/pipeline/common.sh"
. "$top_srcdir/contrib/bash-completion/crfpipe"

# comp WORD...: the completions of the last word
comp() {
    COMP_WORDS=("$CRFPIPE" "$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _crfpipe || true  # compgen fails when nothing matches
    printf '%s\n' "${COMPREPLY[@]}" | sort
}
# expect "WORDS" EXPECTED...: every EXPECTED is offered
expect() {
    local words=$1 e
    shift
    # shellcheck disable=SC2086
    comp $words >"$tmp/c"
    [ "${words: -1}" = " " ] && comp $words "" >"$tmp/c"
    for e in "$@"; do
        grep -qx -- "$e" "$tmp/c" || { fail "'crfpipe $words<TAB>' does not offer '$e' (offers: $(tr '\n' ' ' <"$tmp/c"))"; }
    done
}
absent() {
    local words=$1 e
    shift
    # shellcheck disable=SC2086
    comp $words >"$tmp/c"
    for e in "$@"; do
        grep -qx -- "$e" "$tmp/c" && fail "'crfpipe $words<TAB>' offers '$e'"
    done
    return 0
}

expect "tr" train
expect "t" train tag
expect "--qu" --quiet
expect "train --tem" --template
expect "train --rh" --rho1 --rho2
expect "train --trainer sgd-l1 --et" --eta0
absent "train --et" --eta0
expect "train --trainer lb" lbfgs
expect "train --trainer sgd-l1,lb" sgd-l1,lbfgs
expect "train --trainer p" perceptron
expect "train --trainer r" rprop
expect "train --trainer perceptron --variant " perceptron pa arow mira
expect "train --trainer rprop --variant rprop" rprop+ rprop-
expect "tag --nb" --nbest
expect "tag --pred" --prediction-to
expect "tag --prediction-to m" misc
expect "tag --to conll" conll conllu
# features writes CRFsuite's or Wapiti's data, not a writer's format
expect "features --to " crfsuite wapiti
absent "features --to " xml
expect "convert --from x" xml
expect "eval --rep" --report
expect "tag --dec" --decode
expect "eval --dec" --decode
expect "tag --decode p" posterior
expect "validate --schema p" pipeline
expect "plugins vit" viterbi
expect "plugins --ki" --kind
expect "plugins --kind tr" trainer
expect "help ev" eval
expect "model d" dump
expect "model i" info import
expect "model t" top
expect "model e" export
expect "--quiet tr" train
expect "run --o" --output
finish
