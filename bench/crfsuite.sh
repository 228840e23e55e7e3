#!/bin/bash
# crfpipe beside CRFsuite on CoNLL-2000 chunking, with the attributes of
# CRFsuite's chunking example (words and POS in a 5-token window, their
# bigrams and POS trigrams, __BOS__/__EOS__): what a CRFsuite user moving
# over sees.
#   - training: `crfsuite learn` (L-BFGS, c2 = 1) and `crfpipe train
#     --features attributes --rho2 2` (the same penalty: CRFsuite adds
#     c2·|w|², crfpipe rho2/2·|θ|²) on the same CRFsuite file, with every
#     label pair (crfpipe's default) and with the seen ones only (CRFsuite's
#     model family, whose objective at the optimum is printed beside
#     CRFsuite's final loss): wall time, peak memory, chunk F1 on test.txt;
#   - the CRFsuite model imported (`crfpipe model import`) and tagging
#     test.txt: whether every token gets CRFsuite's label, and the tagging
#     time (best of 3) and memory of `crfsuite tag` and `crfpipe tag`;
#   - crfpipe's seen-pairs model exported (`crfpipe model export`) and
#     tagged by `crfsuite tag`: whether every token gets crfpipe's label;
#   - `crfsuite tag -p -i -l` against the imported model's output in that
#     format (crfsuite_writer's probability, marginal, marginal-all): the
#     same lines, numbers to their last printed digit.
# Usage: bench/crfsuite.sh DATA_DIR [CRFSUITE]
#   DATA_DIR holds conll2000/train.txt and test.txt (research use: read
#   there, never copied); CRFSUITE is the crfsuite program (default: from
#   PATH; without it only crfpipe's rows are measured).
# Run from the build tree (make bench-crfsuite DATA=... CRFSUITE=...) or with
# CRFPIPE pointing to the crfpipe program.
set -euo pipefail
data=${1:?usage: bench/crfsuite.sh DATA_DIR [CRFSUITE]}/conll2000
crfsuite=${2:-$(command -v crfsuite || true)}
crfpipe=${CRFPIPE:-./core/crfpipe}
[ -f "$data/train.txt" ] || { echo "no $data/train.txt" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crfpipe-bench-crfsuite.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# CoNLL-2000 columns (word POS chunk) to CRFsuite data with the example's
# attributes; ':' and '\' in names escaped as CRFsuite reads them.
to_crfsuite() {
    awk '
        function esc(s) { gsub(/\\/, "&&", s); gsub(/:/, "\\:", s); return s }
        function at(f, i) { return f == "w" ? w[i] : p[i] }
        function tpl(t, spec,   n, k, parts, name, val, f, o) {
            n = split(spec, parts, " ")
            name = ""; val = ""
            for (k = 1; k <= n; k++) {
                split(parts[k], fo, ",")
                f = fo[1]; o = fo[2] + 0
                if (t + o < 1 || t + o > N) return ""
                name = name (k > 1 ? "|" : "") f "[" o "]"
                val = val (k > 1 ? "|" : "") at(f, t + o)
            }
            return "\t" esc(name "=" val)
        }
        function flush(   t, s, k) {
            if (N == 0) return
            for (t = 1; t <= N; t++) {
                s = y[t]
                for (k = 1; k <= nt; k++) s = s tpl(t, T[k])
                if (t == 1) s = s "\t__BOS__"
                if (t == N) s = s "\t__EOS__"
                print s
            }
            print ""
            N = 0
        }
        BEGIN {
            nt = split("w,-2;w,-1;w,0;w,1;w,2;w,-1 w,0;w,0 w,1;" \
                       "pos,-2;pos,-1;pos,0;pos,1;pos,2;pos,-2 pos,-1;pos,-1 pos,0;pos,0 pos,1;" \
                       "pos,1 pos,2;pos,-2 pos,-1 pos,0;pos,-1 pos,0 pos,1;pos,0 pos,1 pos,2", T, ";")
        }
        NF == 0 { flush(); next }
        { N++; w[N] = $1; p[N] = $2; y[N] = $3 }
        END { flush() }' "$1"
}
to_crfsuite "$data/train.txt" >"$tmp/train.crfsuite"
to_crfsuite "$data/test.txt" >"$tmp/test.crfsuite"
echo "CoNLL-2000 as CRFsuite data: $(grep -c . "$tmp/train.crfsuite") training tokens, $(grep -c . "$tmp/test.crfsuite") test tokens" >&2

. "$(dirname "$0")/timing.sh"
# f1 FILE: conlleval chunk F1 of a file whose last two columns are gold, prediction
f1() { "$crfpipe" eval --label word --guess label "$1" 2>/dev/null | sed -n 's/^chunk F1: *//p'; }

rows=()
timed cp-train "$crfpipe" -q train --features attributes --rho2 2 --model "$tmp/cp.model" \
    "$tmp/train.crfsuite"
best3 cp-tag "$crfpipe" tag --model "$tmp/cp.model" -o "$tmp/cp.out" "$tmp/test.crfsuite"
rows+=("| crfpipe train --features attributes --rho2 2 | $(wall cp-train) | $(rss cp-train) | $(f1 "$tmp/cp.out") | $(wall cp-tag) | $(rss cp-tag) |")
# CRFsuite's model family: only the label pairs the data shows, so the
# objective is CRFsuite's own
timed sp-train "$crfpipe" train --features attributes --rho2 2 --all-states false \
    --all-transitions false --model "$tmp/sp.model" "$tmp/train.crfsuite" 2>"$tmp/sp.log"
best3 sp-tag "$crfpipe" tag --model "$tmp/sp.model" -o "$tmp/sp.out" "$tmp/test.crfsuite"
sp_f=$(sed -n 's/.*F = \([0-9.e+-]*\).*/\1/p' "$tmp/sp.log" | tail -n 1)
rows+=("| crfpipe train ... --all-states false --all-transitions false (F = $sp_f) | $(wall sp-train) | $(rss sp-train) | $(f1 "$tmp/sp.out") | $(wall sp-tag) | $(rss sp-tag) |")

if [ -n "$crfsuite" ]; then
    timed cs-train "$crfsuite" learn -m "$tmp/cs.model" "$tmp/train.crfsuite" >"$tmp/cs.log"
    # (each run rewrites cs.out: the redirection is inside the timed command)
    best3 cs-tag sh -c 'exec "$0" tag -r -m "$1" "$2" >"$3"' "$crfsuite" "$tmp/cs.model" \
        "$tmp/test.crfsuite" "$tmp/cs.out"
    cs_f=$(sed -n 's/^Loss: *//p' "$tmp/cs.log" | tail -n 1)
    rows+=("| crfsuite learn (c2 = 1; loss $cs_f), crfsuite tag | $(wall cs-train) | $(rss cs-train) | $(f1 "$tmp/cs.out") | $(wall cs-tag) | $(rss cs-tag) |")
    timed import "$crfpipe" model import "$tmp/cs.model" -o "$tmp/imported.model" 2>/dev/null
    best3 im-tag "$crfpipe" tag --model "$tmp/imported.model" -o "$tmp/im.out" "$tmp/test.crfsuite"
    rows+=("| the CRFsuite model imported ($(wall import) s, $(rss import) MB), crfpipe tag | - | - | $(f1 "$tmp/im.out") | $(wall im-tag) | $(rss im-tag) |")
    same=$(paste "$tmp/cs.out" "$tmp/im.out" | awk -F'\t' '$1 != "" { n++; s += ($2 == $4) } END { printf "%d of %d", s, n }')
    # and the other way: crfpipe's model of CRFsuite's family exported, then
    # `crfsuite tag` with it against `crfpipe tag` with the model itself
    timed export "$crfpipe" model export "$tmp/sp.model" -o "$tmp/exported.crfsuite" 2>/dev/null
    best3 ex-tag sh -c 'exec "$0" tag -r -m "$1" "$2" >"$3"' "$crfsuite" "$tmp/exported.crfsuite" \
        "$tmp/test.crfsuite" "$tmp/ex.out"
    rows+=("| crfpipe's seen-pairs model exported ($(wall export) s, $(rss export) MB), crfsuite tag | - | - | $(f1 "$tmp/ex.out") | $(wall ex-tag) | $(rss ex-tag) |")
    same_ex=$(paste "$tmp/ex.out" "$tmp/sp.out" | awk -F'\t' '$1 != "" { n++; s += ($2 == $4) } END { printf "%d of %d", s, n }')
    "$crfsuite" tag -p -i -l -m "$tmp/cs.model" "$tmp/test.crfsuite" >"$tmp/cs-pil.out"
    "$crfpipe" tag --model "$tmp/imported.model" --scores true --posteriors --marginals 1000 \
        --marginals-order label --writer-param probability=true --writer-param marginal=true \
        --writer-param marginal-all=true --writer-param reference=false -o "$tmp/im-pil.out" \
        "$tmp/test.crfsuite"
    pil=$(awk -v F="$tmp/cs-pil.out" -f "$(dirname "$0")/../tests/same-but-rounding.awk" \
        "$tmp/im-pil.out" || true)
    cmp -s "$tmp/cs-pil.out" "$tmp/im-pil.out" && pil="$pil; byte for byte"
fi

echo "| run | training s | training MB | chunk F1 | tagging s | tagging MB |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
[ -n "$crfsuite" ] && echo "tokens labelled as crfsuite tag labels them, with the imported model: $same"
[ -n "$crfsuite" ] && echo "tokens crfsuite tag labels as crfpipe tag does, with crfpipe's exported model: $same_ex"
[ -n "$crfsuite" ] && echo "crfsuite tag -p -i -l against the imported model's output: $pil"
exit 0
