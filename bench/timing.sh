# Timing and table helpers of the benchmark scripts (sourced; needs $tmp).
# timed NAME CMD...: run, record wall seconds and peak RSS (KB) in $tmp/NAME.time
timed() {
    local name=$1
    shift
    /usr/bin/time -f "%e %M" -o "$tmp/$name.time" "$@"
}
# best3 NAME CMD...: timed three times, keeping the fastest run's figures
# (tagging takes a fraction of a second: one run says little)
best3() {
    local name=$1
    shift
    timed "$name" "$@"
    for k in 2 3; do
        timed "$name.$k" "$@"
        if awk -v a="$(awk '{ print $1 }' "$tmp/$name.$k.time")" '{ exit !(a < $1) }' "$tmp/$name.time"
        then mv "$tmp/$name.$k.time" "$tmp/$name.time"; fi
    done
}
# wall NAME, rss NAME: the seconds and the peak memory (MB) recorded
wall() { awk '{ print $1 }' "$tmp/$1.time"; }
rss() { awk '{ printf "%d", $2 / 1024 }' "$tmp/$1.time"; }
# same_last_field A B: "S of N": of the N token lines of A (blank lines
# aside), S end in the same field as B's line (Wapiti appends its label
# after a tab, crfpipe after the input's separator: the last field either way)
same_last_field() {
    paste -d '\n' "$1" "$2" | awk 'NR % 2 { w = $NF; blank = (NF == 0); next }
        !blank { n++; s += ($NF == w) } END { printf "%d of %d", s, n }'
}
# print_rows ROW...: the table of the Wapiti benchmarks, head and rows
print_rows() {
    echo "| run | training s | training MB | active features | chunk F1 | tagging s | tagging MB |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "$@"
}
