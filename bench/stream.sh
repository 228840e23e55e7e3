#!/bin/bash
# Streaming benchmark (issue 8): throughput and peak memory of the document
# path on the CoNLL-2000 test set concatenated 10 x N times (N = 1: 6.4 MB,
# 473,770 tokens; N = 10: 64 MB), for convert conll->conll, conll->xml,
# xml->conll (with `xmllint --stream` on the same XML as the yardstick) and
# `crfpipe tag` end to end on 1 and $THREADS threads, so that scaling with
# the input is visible.  Then what a document costs: bytes and mallocs per
# token.
#
# Usage: bench/stream.sh DATA_DIR      (make bench-stream DATA=../shared/data)
# Environment: SIZES="1 10" (add 100 for 640 MB; the XML runs only for sizes up to
# XML_MAX=10, since 640 MB of CoNLL is 8 GB of XML), THREADS=2, MODEL=path (an
# L-BFGS chunking model; default BENCH_OUT/lbfgs.model, trained when absent),
# BENCH_OUT=bench-out.
#
# CoNLL-2000 is for research use only: the N x files are generated in a
# temporary directory, removed at exit, never in the tree.
set -euo pipefail
data=${1:?usage: stream.sh DATA_DIR}/conll2000
here=$(cd "$(dirname "$0")/.." && pwd)
CRFPIPE=${CRFPIPE:-$here/core/crfpipe}
DOCMEM=${DOCMEM:-$here/bench/docmem}
# the build tree's libtool, to run valgrind on the real program
LIBTOOL=${LIBTOOL:-$(dirname "$CRFPIPE")/../libtool}
SIZES=${SIZES:-1 10}
XML_MAX=${XML_MAX:-10}
THREADS=${THREADS:-2}
out=${BENCH_OUT:-bench-out}
mkdir -p "$out"
[ -r "$data/test.txt" ] || { echo "no $data/test.txt" >&2; exit 1; }
TIME=/usr/bin/time
[ -x $TIME ] || { echo "bench needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crfpipe-stream.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

model=${MODEL:-$out/lbfgs.model}
if [ ! -r "$model" ]; then
    echo "== training $model (L-BFGS, chunking.tpl; once)" >&2
    "$CRFPIPE" --quiet train --template "$here/samples/chunking/chunking.tpl" \
        --columns word,pos,chunk --model "$model" "$data/train.txt"
fi

mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
# rate N SECONDS DIGITS: N per second
rate() { awk -v n="$1" -v s="$2" -v d="$3" 'BEGIN { if (s > 0) printf "%.*f", d, n / s; else print "-" }'; }

# Rows are kept as numbers and printed at the end.
R_name=() R_n=() R_in=() R_xml=() R_tok=() R_e=() R_c=() R_rss=()
declare -A wall cpu
# measure NAME N IN_BYTES XML_BYTES TOKENS CMD...: one run under time(1).
measure() {
    local name=$1 n=$2
    R_name+=("$name") R_n+=("$n") R_in+=("$3") R_xml+=("$4") R_tok+=("$5")
    shift 5
    $TIME -f '%e %U %S %M' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
        { cat "$tmp/err" >&2; echo "failed: $*" >&2; exit 1; }
    local e u s rss c
    read -r e u s rss < "$tmp/time"
    c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    wall[$name,$n]=$e
    cpu[$name,$n]=$c
    R_e+=("$e") R_c+=("$c") R_rss+=("$((rss / 1024))")
}

for n in $SIZES; do
    in="$tmp/c$n.txt"
    for ((i = 0; i < 10 * n; i++)); do cat "$data/test.txt"; done > "$in"
    inb=$(stat -c %s "$in")
    tok=$(grep -c . "$in")
    echo "== $((n * 10))x test.txt: $(mb "$inb") MB, $tok tokens" >&2
    measure "conll->conll" "$n" "$inb" 0 "$tok" \
        "$CRFPIPE" convert --from conll --to conll "$in" -o "$tmp/out.txt"
    cmp -s "$in" "$tmp/out.txt" || { echo "conll->conll is not byte-identical" >&2; exit 1; }
    if [ "$n" -le "$XML_MAX" ]; then
        measure "conll->xml" "$n" "$inb" 0 "$tok" \
            "$CRFPIPE" convert --from conll --to xml --columns word,pos,chunk "$in" -o "$tmp/c.xml"
        xmlb=$(stat -c %s "$tmp/c.xml")
        R_xml[${#R_xml[@]} - 1]=$xmlb   # the XML it wrote
        measure "xml->conll" "$n" "$xmlb" "$xmlb" "$tok" \
            "$CRFPIPE" convert --from xml --to conll "$tmp/c.xml" -o "$tmp/back.txt"
        cmp -s "$in" "$tmp/back.txt" || { echo "conll->xml->conll is not byte-identical" >&2; exit 1; }
        if command -v xmllint >/dev/null; then
            measure "xmllint --stream" "$n" "$xmlb" "$xmlb" "$tok" xmllint --stream --noout "$tmp/c.xml"
    fi
    rm -f "$tmp/c.xml" "$tmp/back.txt"
    fi
    measure "tag, 1 thread" "$n" "$inb" 0 "$tok" \
        "$CRFPIPE" tag --threads 1 --model "$model" --columns word,pos,chunk "$in" -o "$tmp/t1.txt"
    measure "tag, $THREADS threads" "$n" "$inb" 0 "$tok" \
        "$CRFPIPE" tag --threads "$THREADS" --model "$model" --columns word,pos,chunk "$in" \
        -o "$tmp/t2.txt"
    cmp -s "$tmp/t1.txt" "$tmp/t2.txt" || { echo "tag: threads change the output" >&2; exit 1; }
    rm -f "$in" "$tmp"/out.txt "$tmp"/t1.txt "$tmp"/t2.txt
done

echo
echo "Document path on the CoNLL-2000 test set x K ($(nproc) cores, $(date -u +%F));"
echo "rates from wall time / from CPU time (user + sys: what a shared machine cannot steal)"
echo "| run                |    K |    MB in | wall s |  CPU s | MB/s in (w / c) | XML MB/s (w / c) | tokens/s (w / c)        | peak RSS MB |"
echo "|--------------------|------|----------|--------|--------|-----------------|------------------|-------------------------|-------------|"
for ((r = 0; r < ${#R_name[@]}; r++)); do
    e=${R_e[r]} c=${R_c[r]} x=${R_xml[r]}
    xmlcol="-"
    [ "$x" -gt 0 ] && xmlcol="$(rate "$x" "$(awk -v e="$e" 'BEGIN { print e * 1e6 }')" 0) / $(rate "$x" "$(awk -v e="$c" 'BEGIN { print e * 1e6 }')" 0)"
    printf '| %-18s | %4s | %8s | %6s | %6s | %15s | %16s | %23s | %11s |\n' "${R_name[r]}" \
        "$((R_n[r] * 10))" "$(mb "${R_in[r]}")" "$e" "$c" \
        "$(rate "${R_in[r]}" "$(awk -v e="$e" 'BEGIN { print e * 1e6 }')" 1) / $(rate "${R_in[r]}" "$(awk -v e="$c" 'BEGIN { print e * 1e6 }')" 1)" \
        "$xmlcol" "$(rate "${R_tok[r]}" "$e" 0) / $(rate "${R_tok[r]}" "$c" 0)" "${R_rss[r]}"
done
set -- $SIZES
if [ $# -ge 2 ]; then
    a=$1 b=${!#}
    echo
    echo "Scaling, input x$((b * 10)) over x$((a * 10)) (linear: $((b / a))):"
    for name in "conll->conll" "conll->xml" "xml->conll" "tag, 1 thread" "tag, $THREADS threads"; do
        [ -n "${wall[$name,$a]:-}" ] && [ -n "${wall[$name,$b]:-}" ] || continue
        printf '  %-16s time x %s wall, x %s CPU\n' "$name" \
            "$(awk -v x="${wall[$name,$b]}" -v y="${wall[$name,$a]}" 'BEGIN { printf "%.2f", x / y }')" \
            "$(awk -v x="${cpu[$name,$b]}" -v y="${cpu[$name,$a]}" 'BEGIN { printf "%.2f", x / y }')"
    done
    for k in $a $b; do
        printf '  tag on %s threads: x %s faster (wall) at x%s\n' "$THREADS" \
            "$(awk -v x="${wall["tag, 1 thread",$k]}" -v y="${wall["tag, $THREADS threads",$k]}" \
                'BEGIN { printf "%.2f", x / y }')" "$((k * 10))"
    done
fi

# What a document costs per token, on one copy of the test set.
echo
if [ -x "$DOCMEM" ]; then
    echo "Documents of conll_reader: $("$DOCMEM" "$data/test.txt" conll_reader word,pos,chunk)"
fi
if command -v valgrind >/dev/null && [ -x "$LIBTOOL" ]; then
    tok=$(grep -c . "$data/test.txt")
    for what in "conll->conll:conll" "conll->xml:xml"; do
        to=${what#*:}
        allocs=$("$LIBTOOL" --mode=execute valgrind --tool=memcheck --leak-check=no \
            "$CRFPIPE" convert --from conll --to "$to" "$data/test.txt" -o "$tmp/v.out" 2>&1 |
            sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,)
        [ -n "$allocs" ] && printf 'mallocs per token, convert %s: %s (%s mallocs, %s tokens)\n' \
            "${what%%:*}" "$(awk -v a="$allocs" -v t="$tok" 'BEGIN { printf "%.3f", a / t }')" \
            "$allocs" "$tok"
    done
fi
