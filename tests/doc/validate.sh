#!/bin/sh
# `crfpipe validate`: a valid corpus passes (exit 0, "FILE: valid"); a
# schema violation and malformed XML fail with exit 1 and file:line errors.
set -u
d="$top_srcdir/tests/doc"
out=validate.out
err=validate.err
fail=0
check() { if ! eval "$1"; then echo "FAILED: $1" >&2; cat "$out" "$err" >&2; fail=1; fi; }

"$CRFPIPE" validate "$d/valid.xml" >"$out" 2>"$err"; rc=$?
check '[ $rc -eq 0 ]'
check 'grep -q "valid.xml: valid" "$out"'

"$CRFPIPE" validate --schema document "$d/invalid-schema.xml" >"$out" 2>"$err"; rc=$?
check '[ $rc -eq 1 ]'
check 'grep -q "invalid-schema.xml:7:" "$err"'
check 'grep -q "invalid-schema.xml:9:" "$err"'

"$CRFPIPE" validate "$d/malformed.xml" >"$out" 2>"$err"; rc=$?
check '[ $rc -eq 1 ]'
check 'grep -q "malformed.xml:5:" "$err"'

# Several files: one bad one makes the whole run fail, the good one is still reported.
"$CRFPIPE" validate "$d/valid.xml" "$d/malformed.xml" >"$out" 2>"$err"; rc=$?
check '[ $rc -eq 1 ]'
check 'grep -q "valid.xml: valid" "$out"'

"$CRFPIPE" validate "$d/no-such-file.xml" >"$out" 2>"$err"; rc=$?
check '[ $rc -eq 1 ]'
check 'grep -q "no-such-file.xml" "$err"'

# CRFPIPE_SCHEMA_DIR overrides where the schemas are looked for.
CRFPIPE_SCHEMA_DIR=/nonexistent "$CRFPIPE" validate "$d/valid.xml" >"$out" 2>"$err"; rc=$?
check '[ $rc -eq 1 ]'
check 'grep -q "/nonexistent/document.rng" "$err"'
CRFPIPE_SCHEMA_DIR="$top_srcdir/schemas" "$CRFPIPE" validate "$d/valid.xml" >"$out" 2>"$err"; rc=$?
check '[ $rc -eq 0 ]'

"$CRFPIPE" validate >"$out" 2>"$err"; rc=$?
check '[ $rc -eq 2 ]'

# Through the xml_reader / xml_writer plugins: the output validates and a
# second pass reproduces it byte for byte.
"$CRFPIPE" convert --from xml --to xml "$d/valid.xml" rt1.xml 2>"$err"; rc=$?
check '[ $rc -eq 0 ]'
"$CRFPIPE" convert --from xml --to xml rt1.xml rt2.xml 2>"$err"; rc=$?
check '[ $rc -eq 0 ]'
check 'cmp rt1.xml rt2.xml'
"$CRFPIPE" validate rt2.xml >"$out" 2>"$err"; rc=$?
check '[ $rc -eq 0 ]'

rm -f "$out" "$err" rt1.xml rt2.xml
exit $fail
