# Shared by the fault-injection tests (sourced).
set -u
: "${CRFPIPE:?run through make check}" "${top_srcdir:?}" "${top_builddir:?}"
FAILMALLOC="$top_builddir/tests/fault/.libs/failmalloc.so"
if [ ! -f "$FAILMALLOC" ]; then
    echo "SKIP: $FAILMALLOC not built"; exit 77
fi
# The interposer cannot sit under the ASan runtime (sanitizer and fuzzing
# builds): it must be the program's only malloc.
for bin in "$top_builddir/core/.libs/lt-crfpipe" "$top_builddir/core/.libs/crfpipe"; do
    if [ -f "$bin" ] && ldd "$bin" 2>/dev/null | grep -q 'libasan\|libclang_rt.asan'; then
        echo "SKIP: sanitizer build (the interposer needs the plain malloc)"; exit 77
    fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crfpipe-fault.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
data="$top_srcdir/tests/fault"
tpl="$top_srcdir/tests/pipeline/tiny.tpl"
SENTINEL="previous contents: must survive a failed run"

# RUNNER (empty, or a valgrind command line) runs the program.
RUNNER=""
# The commands under test, each writing $2 (its output file) and
# reading a model from $tmp/ref.model where it tags.  The pipeline for
# `run` is written once below.
run_cmd() {
    case $1 in
    train) $RUNNER "$CRFPIPE" --quiet train --template "$tpl" --columns form,label --threads 1 \
               --max-iter 5 --model "$2" "$data/tiny.conll" ;;
    # CRFsuite's model family: the seen label pairs marked, then masked
    seen) $RUNNER "$CRFPIPE" --quiet train --template "$tpl" --columns form,label --threads 1 \
              --all-states false --all-transitions false --max-iter 3 --model "$2" \
              "$data/tiny.conll" ;;
    # the online trainers' own buffers (AROW: one vector more)
    arow) $RUNNER "$CRFPIPE" --quiet train --template "$tpl" --columns form,label --threads 1 \
              --trainer perceptron --variant arow --max-epochs 3 --model "$2" "$data/tiny.conll" ;;
    # RPROP with the elastic net: its four vectors
    rprop) $RUNNER "$CRFPIPE" --quiet train --template "$tpl" --columns form,label --threads 1 \
               --trainer rprop --rho1 0.1 --max-iter 5 --model "$2" "$data/tiny.conll" ;;
    # CRF++'s MIRA: its per-sequence bounds and counters
    mira) $RUNNER "$CRFPIPE" --quiet train --template "$tpl" --columns form,label --threads 1 \
              --trainer perceptron --variant mira --max-epochs 3 --model "$2" "$data/tiny.conll" ;;
    tag) $RUNNER "$CRFPIPE" tag --model "$tmp/ref.model" --columns form,label --threads 1 -o "$2" \
             "$data/tiny.conll" ;;
    # columns named by position (no --columns), read as the model's
    tagpos) $RUNNER "$CRFPIPE" tag --model "$tmp/ref.model" --threads 1 -o "$2" \
                "$data/tiny.conll" ;;
    # n-best, probabilities and ranked marginals, placed before the gold
    tagextra) $RUNNER "$CRFPIPE" tag --model "$tmp/ref.model" --columns form,label --threads 1 \
                  --nbest 2 --posteriors --marginals 3 -o "$2" "$data/tiny.conll" ;;
    # CRFsuite data (some with values): trained with the attributes plugin
    # without start weights, then tagged, written as a CRFsuite model, and a
    # CRFsuite model read
    crfsuite) $RUNNER "$CRFPIPE" --quiet train --features attributes --threads 1 \
                  --all-transitions false --model "$2" "$data/tiny.crfsuite" ;;
    crfsuitetag) $RUNNER "$CRFPIPE" tag --model "$tmp/cs.model" --threads 1 -o "$2" \
                     "$data/tiny.crfsuite" ;;
    csexport) $RUNNER "$CRFPIPE" model export "$tmp/cs.model" -o "$2" ;;
    csimport) $RUNNER "$CRFPIPE" model import -o "$2" \
                  "$top_srcdir/tests/data/crfsuite-model/model.crfsuite" ;;
    # a Wapiti model read (its patterns compiled in Wapiti's dialect), and
    # tagging with it (the dialect's extraction and regexes)
    wapimport) $RUNNER "$CRFPIPE" model import -o "$2" \
                   "$top_srcdir/tests/data/wapiti-model/model.wap" ;;
    waptag) $RUNNER "$CRFPIPE" tag --model "$tmp/wap.model" --format conll --threads 1 -o "$2" \
                "$top_srcdir/tests/data/wapiti-model/test.txt" ;;
    # a Wapiti model trained without patterns read, and Wapiti's data with
    # its observations tagged with it (wapiti_reader, the attributes
    # plugin's Wapiti mode, wapiti_writer)
    wapraw) $RUNNER "$CRFPIPE" model import -o "$2" "$top_srcdir/tests/data/wapiti-model/raw.wap" ;;
    wapdata) $RUNNER "$CRFPIPE" tag --model "$tmp/wapraw.model" --format wapiti --threads 1 \
                 --scores true --token-scores true -o "$2" "$tmp/raw.txt" ;;
    # a CRFsuite model's import tagging CRFsuite's data as crfsuite tag -p
    # -i -l prints it (crfsuite_writer's results, marginals in label order)
    csall) $RUNNER "$CRFPIPE" tag --model "$tmp/csimport.model" --threads 1 --scores true \
               --posteriors --marginals 100 --marginals-order label --writer-param probability=true \
               --writer-param marginal=true --writer-param marginal-all=true -o "$2" \
               "$top_srcdir/tests/data/crfsuite-model/test.crfsuite" ;;
    # CRF++'s binary model (its double-array trie walked) and text model read
    ppimport) $RUNNER "$CRFPIPE" model import -o "$2" "$top_srcdir/tests/data/crfpp-model/model" ;;
    pptimport) $RUNNER "$CRFPIPE" model import -o "$2" \
                   "$top_srcdir/tests/data/crfpp-model/model.txt" ;;
    # CRF++'s model tagging as crf_test -v2 -n 2 prints (crfpp_writer)
    ppall) $RUNNER "$CRFPIPE" tag --model "$tmp/ppimport.model" --threads 1 --posteriors \
               --nbest 2 --marginals 100 --marginals-order label --to crfpp \
               --writer-param verbose=2 -o "$2" "$top_srcdir/tests/data/wapiti-model/test.txt" ;;
    # GATE spans made token labels, written as columns
    spans) $RUNNER "$CRFPIPE" run "$tmp/spans.xml" -i "$top_srcdir/tests/text/annie.gate.xml" \
               -o "$2" ;;
    # any XML as a stream of documents, written back inline (markup_reader
    # document mode, markup_writer corpus), and an HTML page
    markup) $RUNNER "$CRFPIPE" convert --from markup --reader-param document=doc --to markup \
                --writer-param corpus=docs --writer-param root=doc "$tmp/multi.xml" "$2" ;;
    html) $RUNNER "$CRFPIPE" convert --to markup "$top_srcdir/tests/fuzz/corpus/markup/page.html" \
              "$2" ;;
    # two annotation sets compared (eval --spans)
    spandiff) $RUNNER "$CRFPIPE" eval --spans Person,Location --diff-param key-set=NE \
                  --diff-param response-set=NE --diff-param response-types=Person -o "$2" \
                  "$top_srcdir/tests/text/annie.gate.xml" ;;
    # and back: the column writer's failures once said "error: ok"
    convertback) $RUNNER "$CRFPIPE" convert --from xml --to conll "$tmp/tiny.xml" "$2" ;;
    convert) $RUNNER "$CRFPIPE" convert --from conll --to xml --columns form,label "$data/tiny.conll" \
                 "$2" ;;
    run) $RUNNER "$CRFPIPE" run "$tmp/tag.xml" -i "$data/tiny.conll" -o "$2" ;;
    # two inputs through one run (begin, two feeds, end)
    runmany) $RUNNER "$CRFPIPE" run "$tmp/tag.xml" -o "$2" "$data/tiny.conll" "$data/tiny.conll" ;;
    # cross-validation (2 folds), then the model of all the data in $2
    cv) $RUNNER "$CRFPIPE" --quiet train --template "$tpl" --columns form,label --threads 1 \
            --max-iter 3 --cv-folds 2 --model "$2" "$data/tiny.conll" ;;
    # the same with a chain: a copy of the model per fold, shrunk between stages
    cvchain) $RUNNER "$CRFPIPE" --quiet train --template "$tpl" --columns form,label --threads 1 \
                 --trainer sgd-l1,lbfgs --rho1 0.1 --2.rho1 0 --max-iter 2 --cv-folds 2 \
                 --model "$2" "$data/tiny.conll" ;;
    # the frequency cut-off: the model and data rebuilt before the layout
    minfreq) $RUNNER "$CRFPIPE" --quiet train --template "$tpl" --columns form,label --threads 1 \
                 --max-iter 3 --min-freq 2 --dev "$data/tiny.conll" --model "$2" "$data/tiny.conll" ;;
    # weighted sequences (@weight:W): L-BFGS and the averaged perceptron
    # (whose weighted update merges the two paths' features first)
    csweight) $RUNNER "$CRFPIPE" --quiet train --features attributes --threads 1 --max-iter 3 \
                  --model "$2" "$tmp/weighted.crfsuite" ;;
    cswperc) $RUNNER "$CRFPIPE" --quiet train --features attributes --threads 1 --max-iter 3 \
                 --trainer perceptron --model "$2" "$tmp/weighted.crfsuite" ;;
    # CRFsuite's feature.minfreq: the label pairs' weighted sums
    csminfreq) $RUNNER "$CRFPIPE" --quiet train --features attributes --threads 1 --max-iter 3 \
                   --all-states false --all-transitions false --min-freq 1.5 --model "$2" \
                   "$tmp/weighted.crfsuite" ;;
    # a template's observations as CRFsuite's data
    features) $RUNNER "$CRFPIPE" --quiet features --template "$tpl" --columns form,label -o "$2" \
                  "$data/tiny.conll" ;;
    # a model's sizes, and all of its weights ranked
    modelinfo) $RUNNER "$CRFPIPE" model info -o "$2" "$tmp/ref.model" ;;
    modeltop) $RUNNER "$CRFPIPE" model top -n 0 --order abs -o "$2" "$tmp/ref.model" ;;
    esac
}

setup_models() {
    cat >"$tmp/tag.xml" <<X
<pipeline xmlns="urn:crfpipe:pipeline:1">
  <stage plugin="conll_reader"><param name="columns" value="form,label"/></stage>
  <stage plugin="viterbi"><param name="model" value="$tmp/ref.model"/>
    <param name="threads" value="1"/></stage>
  <stage plugin="xml_writer"/>
</pipeline>
X
    awk 'BEGIN { split("2 0.5 0 3.25", W, " ") } NF && !open_ { print "@weight:" W[n++ % 4 + 1] }
         { open_ = NF > 0; print }' "$data/tiny.crfsuite" >"$tmp/weighted.crfsuite"
    LC_ALL=C awk -F'\t' -f "$top_srcdir/tests/data/wapiti-model/raw.awk" \
        "$top_srcdir/tests/data/wapiti-model/test.txt" | awk 'NF == 0 { n++ } n < 8' >"$tmp/raw.txt"
    cat >"$tmp/multi.xml" <<X
<docs><doc id="a" lang="en">Hello <b x="1">world</b>.<br/></doc>
<doc>Caf&#233; <i/>&amp; <x:y xmlns:x="urn:x">co</x:y>.</doc></docs>
X
    cat >"$tmp/spans.xml" <<X
<pipeline xmlns="urn:crfpipe:pipeline:1">
  <stage plugin="gate_reader"/>
  <stage plugin="span_labels"><param name="span-set" value="NE"/>
    <param name="types" value="Person,Location"/><param name="scheme" value="bioes"/></stage>
  <stage plugin="conll_writer"><param name="columns" value="string,label"/></stage>
</pipeline>
X
    if ! run_cmd convert "$tmp/tiny.xml" 2>"$tmp/err" || ! run_cmd train "$tmp/ref.model" 2>"$tmp/err" || ! run_cmd crfsuite "$tmp/cs.model" 2>"$tmp/err" || ! run_cmd wapimport "$tmp/wap.model" 2>"$tmp/err" || ! run_cmd wapraw "$tmp/wapraw.model" 2>"$tmp/err" || ! run_cmd csimport "$tmp/csimport.model" 2>"$tmp/err" || ! run_cmd ppimport "$tmp/ppimport.model" 2>"$tmp/err"; then
        cat "$tmp/err" >&2
        echo "FAIL: training the reference model without faults" >&2
        exit 1
    fi
}

# Leftover temporary files next to an output are partial output too.
check_no_tmp_unused() {
    for f in "$1".tmp.*; do
        [ -e "$f" ] && fail "$2: temporary file left behind: $f"
    done
}

finish() {
    if [ "$fails" -gt 0 ]; then echo "$fails failure(s)" >&2; exit 1; fi
    exit 0
}
