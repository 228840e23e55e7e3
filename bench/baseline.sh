#!/bin/bash
# Build crfpipe at revision REV (default: the commit before plugin ABI 2) into
# DIR, for side-by-side timings in one benchmark run.  Prints DIR.
#   bench/baseline.sh [REV] [DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
rev=${1:-f947eba}
dir=${2:-${TMPDIR:-/tmp}/crfpipe-baseline-$rev}
if [ ! -x "$dir/build/core/crfpipe" ] || [ ! -x "$dir/build/bench/tagbench" ]; then
    rm -rf "$dir"
    mkdir -p "$dir"
    git -C "$here" archive "$rev" | tar -x -C "$dir"
    (cd "$dir" && autoreconf -fi >/dev/null 2>&1 && mkdir -p build && cd build &&
        ../configure --enable-silent-rules -q >/dev/null &&
        make -j"$(nproc)" >/dev/null && make bench/tagbench >/dev/null) >&2
fi
echo "$dir/build"
