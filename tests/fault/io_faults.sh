#!/bin/sh
# I/O faults on output files and model saving: every write to the file the
# program creates (ENOSPC, EIO), its close (EIO, as NFS reports late write
# errors), a file size limit hit midway (short write, then EFBIG), and a
# full stdout.  Each must give exit status 1 with a message naming the
# file, and leave the previous file intact with no temporary file behind.
. "$top_srcdir/tests/fault/common.sh"
setup_models

# The seccomp filters failmalloc installs need a kernel and container that
# allow them; skip rather than pass vacuously.
printf '%s\n' "$SENTINEL" >"$tmp/probe"
rc=0
FAILIO=eio LD_PRELOAD="$FAILMALLOC" run_cmd tag "$tmp/probe" >/dev/null 2>"$tmp/err" || rc=$?
if [ "$rc" -eq 77 ]; then echo "SKIP: seccomp filters not allowed here"; exit 77; fi

# The commands run under `env FAILIO=...`, i.e. in a child shell: give it
# run_cmd and its variables.
{
    printf 'CRFPIPE=%s; tpl=%s; data=%s; tmp=%s; RUNNER=\n' "'$CRFPIPE'" "'$tpl'" "'$data'" "'$tmp'"
    sed -n '/^run_cmd() {/,/^}/p' "$top_srcdir/tests/fault/common.sh"
} >"$tmp/runcmd.sh"

# A larger input, so that a size limit of a few kB cuts the output midway.
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do cat "$data/tiny.conll"; echo; done \
    >"$tmp/big.conll"

# check_fault WHAT PATTERN OUT CMD...: CMD must fail cleanly naming the error.
check_fault() {
    what=$1 pat=$2 out=$3
    shift 3
    printf '%s\n' "$SENTINEL" >"$out"
    rc=0
    "$@" >/dev/null 2>"$tmp/err" || rc=$?
    if [ "$rc" -ne 1 ]; then
        fail "$what: exit status $rc, expected 1: $(head -c 300 "$tmp/err")"
    elif ! grep -q -- "$pat" "$tmp/err"; then
        fail "$what: no '$pat' in: $(head -c 300 "$tmp/err")"
    fi
    [ "$(cat "$out")" = "$SENTINEL" ] || fail "$what: the previous file was changed"
    for f in "$out".tmp.*; do
        [ -e "$f" ] && { fail "$what: temporary file left behind: $f"; rm -f "$f"; }
    done
}

for mode in enospc eio close-eio; do
    case $mode in
    enospc) pat="No space left on device" ;;
    *) pat="Input/output error" ;;
    esac
    for cmd in train tag convert run modelinfo modeltop; do
        out="$tmp/$cmd.$mode"
        check_fault "$cmd with FAILIO=$mode" "$pat" "$out" \
            env FAILIO=$mode LD_PRELOAD="$FAILMALLOC" sh -c '. "$0"; run_cmd "$1" "$2"' \
            "$tmp/runcmd.sh" "$cmd" "$out"
    done
done

# Short writes: a 2 kB file size limit (ulimit -f counts 512-byte blocks in
# POSIX sh; dash and bash -o posix agree).  SIGXFSZ is ignored, so the write
# that crosses the limit is cut short and the next one fails with EFBIG.
out="$tmp/tag.fsize"
check_fault "tag under a 2 kB file size limit" "File too large" "$out" \
    sh -c 'trap "" XFSZ; ulimit -f 4; exec "$0" tag --model "$1" --columns form,label --threads 1 -o "$2" "$3"' \
    "$CRFPIPE" "$tmp/ref.model" "$out" "$tmp/big.conll"
out="$tmp/convert.fsize"
check_fault "convert to XML under a 2 kB file size limit" "File too large" "$out" \
    sh -c 'trap "" XFSZ; ulimit -f 4; exec "$0" convert --from conll --to xml --columns form,label "$1" "$2"' \
    "$CRFPIPE" "$tmp/big.conll" "$out"

# stdout on a full device: nothing to protect, but the failure must show.
rc=0
"$CRFPIPE" tag --model "$tmp/ref.model" --columns form,label --threads 1 "$tmp/big.conll" \
    >/dev/full 2>"$tmp/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "No space left on device\|write error" "$tmp/err" ||
    fail "tag to a full stdout: status $rc: $(head -c 300 "$tmp/err")"
for what in "info" "top -n 0"; do
    rc=0
    "$CRFPIPE" model $what "$tmp/ref.model" >/dev/full 2>"$tmp/err" || rc=$?
    [ "$rc" -eq 1 ] && grep -q "No space left on device\|write error" "$tmp/err" ||
        fail "model $what to a full stdout: status $rc: $(head -c 300 "$tmp/err")"
done
finish
