#!/bin/sh
# The SDK: `make install` into a staging directory installs the headers,
# libcrfpipe, crfpipe.pc, the man pages, the bash completion and the example
# plugin; the example is then built outside the tree with nothing but
# `pkg-config --cflags --libs crfpipe`, loaded through CRFPIPE_PLUGIN_PATH by
# the installed crfpipe, and run in a pipeline.  `man crfpipe-train` finds
# the installed page.
. "$top_srcdir/tests/pipeline/common.sh"
command -v pkg-config >/dev/null 2>&1 || { echo "no pkg-config: skipped"; exit 77; }
dest="$tmp/dest"
# the make running the tests passes its jobserver through the environment;
# this make is a separate run
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top_builddir" install DESTDIR="$dest" \
    >"$tmp/install.log" 2>&1 || { fail "make install"; tail -30 "$tmp/install.log" >&2; finish; }
prefix=$(sed -n 's/^prefix=//p' "$top_builddir/crfpipe.pc")
root="$dest$prefix"
libdir=$(PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$root/lib/pkgconfig" pkg-config --variable=libdir crfpipe)
libdir="$dest$libdir"
for f in "$root/include/crfpipe/crfpipe.h" "$root/include/crfpipe/plugin.h" \
         "$root/include/crfpipe/observe.h" "$libdir/pkgconfig/crfpipe.pc" "$root/bin/crfpipe" \
         "$root/share/man/man1/crfpipe.1" "$root/share/man/man1/crfpipe-train.1" \
         "$root/share/man/man3/crfpipe-plugin.3" "$root/share/man/man5/crfpipe-templates.5" \
         "$root/share/man/man5/crfpipe-pipeline.5" "$root/share/man/man5/crfpipe-document.5" \
         "$root/share/bash-completion/completions/crfpipe" \
         "$root/share/doc/crfpipe/examples/plugin/wordshape.c" \
         "$root/share/doc/crfpipe/examples/plugin/Makefile"; do
    [ -f "$f" ] || fail "not installed: ${f#$dest}"
done
ls "$libdir"/libcrfpipe.so* >/dev/null 2>&1 || fail "libcrfpipe not installed in ${libdir#$dest}"
for c in $("$CRFPIPE" help --commands); do
    [ -f "$root/share/man/man1/crfpipe-$c.1" ] || fail "man page crfpipe-$c(1) not installed"
done

# man finds the installed pages
if command -v man >/dev/null 2>&1; then
    MANPATH="$root/share/man" MANWIDTH=80 man -P cat crfpipe-train >"$tmp/man.txt" 2>"$tmp/man.err" ||
        { fail "man crfpipe-train"; cat "$tmp/man.err" >&2; }
    grep -q "crfpipe-train - train a linear-chain CRF" "$tmp/man.txt" || fail "man crfpipe-train: wrong page"
    grep -q -- "--history N" "$tmp/man.txt" || fail "man crfpipe-train lacks the lbfgs options"
    MANPATH="$root/share/man" man -w crfpipe-plugin 2>/dev/null | grep -q "$root/share/man/man3/" ||
        fail "man -w crfpipe-plugin does not find section 3 under the prefix"
    MANPATH="$root/share/man" MANWIDTH=80 man -P cat 3 crfpipe-plugin 2>/dev/null |
        grep -q "CRFP_PLUGIN_DEFINE(wordshape)" || fail "crfpipe-plugin(3) does not show the example plugin"
fi

# a third-party plugin, built outside the tree from the installed example
third="$tmp/third"
mkdir -p "$third"
cp "$root/share/doc/crfpipe/examples/plugin/"* "$third/"
export PKG_CONFIG_PATH="$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest"
flags=$(pkg-config --cflags --libs crfpipe) || fail "pkg-config --cflags --libs crfpipe"
echo "pkg-config --cflags --libs crfpipe: $flags"
case $flags in *"$top_srcdir"* | *"$top_builddir"*) fail "pkg-config points into the build tree: $flags" ;; esac
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -Wall -Wextra -Werror -shared -fPIC -o "$third/wordshape.so" "$third/wordshape.c" \
    $flags 2>"$tmp/cc.log" || { fail "the example plugin does not build with the SDK"; cat "$tmp/cc.log" >&2; }
# the installed Makefile does the same
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$third" -B wordshape.so >"$tmp/make.log" 2>&1 ||
    { fail "the example's Makefile"; cat "$tmp/make.log" >&2; }

# the installed program, its installed plugins and the new one
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CRFPIPE_PLUGIN_PATH="$third:$libdir/crfpipe"
export CRFPIPE_SCHEMA_DIR="$root/share/crfpipe/schemas"
run() { "$root/bin/crfpipe" "$@"; }
run plugins wordshape >"$tmp/desc" 2>"$tmp/err" || { fail "crfpipe plugins wordshape"; cat "$tmp/err" >&2; }
grep -q "^file: *$third/wordshape.so" "$tmp/desc" || fail "wordshape not loaded from $third"
grep -q "^  collapse  *bool  *true" "$tmp/desc" || fail "its parameters are not shown"
(cd "$third" && run run shape.xml -i sample.conllu) >"$tmp/shaped" 2>"$tmp/err" ||
    { fail "a pipeline with the third-party plugin"; cat "$tmp/err" >&2; }
printf "McDonald's PROPN XxXx'x\n" | cmp -s - "$(head -1 "$tmp/shaped" >"$tmp/l1"; echo "$tmp/l1")" ||
    fail "unexpected output: $(head -1 "$tmp/shaped")"
grep -q '^1,200 NUM d,d$' "$tmp/shaped" || fail "digits not shaped: $(cat "$tmp/shaped")"
run plugins --names | grep -qx wordshape || fail "plugins --names does not list wordshape"
# its parameters are checked like any plugin's, with a suggestion
cat >"$tmp/bad.xml" <<X
<pipeline xmlns="urn:crfpipe:pipeline:1">
  <stage plugin="conllu_reader"/>
  <stage plugin="wordshape"><param name="colapse" value="false"/></stage>
</pipeline>
X
run run "$tmp/bad.xml" -i "$third/sample.conllu" >/dev/null 2>"$tmp/err" && fail "an unknown parameter was accepted"
grep -q "colapse" "$tmp/err" || fail "the error does not name the parameter: $(cat "$tmp/err")"
finish
