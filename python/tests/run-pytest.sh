#!/bin/sh
# The Python binding tests (pytest), run against the build tree: the
# package is assembled in a temporary directory from the source's
# modules and the built extension; libcrfpipe and the plugins come from
# the build tree.  Skipped when pytest is not installed for $PYTHON
# (Debian: apt-get install python3-pytest).
set -eu
: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"
PYTHON=${PYTHON:-python3}
"$PYTHON" -c 'import pytest' 2>/dev/null || { echo "pytest not installed for $PYTHON: skipped"; exit 77; }
mod="$top_builddir/python/.libs/_crfpipe.so"
[ -f "$mod" ] || { echo "no $mod"; exit 99; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crfpipe-py.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/site/crfpipe"
for f in "$top_srcdir"/python/crfpipe/*.py; do
    ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$tmp/site/crfpipe/$(basename "$f")"
done
ln -s "$(cd "$(dirname "$mod")" && pwd)/_crfpipe.so" "$tmp/site/crfpipe/_crfpipe.so"
export PYTHONPATH="$tmp/site" PYTHONDONTWRITEBYTECODE=1
export LD_LIBRARY_PATH="$top_builddir/core/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CRFPIPE_PLUGIN_PATH=$(for d in "$top_builddir"/plugins/*/.libs; do printf '%s:' "$d"; done)
export CRFPIPE_PLUGIN_PATH CRFPIPE_SCHEMA_DIR="$top_srcdir/schemas"
# A sanitizer build: the interpreter is not instrumented, so the runtime
# has to be loaded first, and Python's own allocations are not leaks of ours.
if command -v ldd >/dev/null 2>&1 && ldd "$mod" | grep -q libasan; then
    asan=$(ldd "$mod" | awk '/libasan/ { print $3 }')
    # (the last setting of an option wins: detect_leaks=0 goes last)
    export LD_PRELOAD="$asan" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
cd "$tmp"
exec "$PYTHON" -m pytest -q -p no:cacheprovider --rootdir="$tmp" "$top_srcdir/python/tests"
