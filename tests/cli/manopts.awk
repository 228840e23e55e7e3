# Options documented in an scdoc man page source, one per line:
#     SECTION <tab> NAME <tab> DEFAULT
# Option entries are lines starting with a bold option ("*--name* _ARG_",
# "*-o*, *--output* _FILE_") followed by a tab-indented paragraph, whose last
# sentence "Default: VALUE." gives the default (empty when absent).
function unescape(s) {
    gsub(/\\_/, "_", s)
    gsub(/\\\*/, "*", s)
    gsub(/\\\\/, "\\", s)
    return s
}
function flush(   n, i, a, d) {
    # prose that merely starts with an option is not an entry: an entry
    # has its paragraph, in a section about options
    if (names == "" || text == "" || sect !~ /OPTIONS/) {
        names = ""
        text = ""
        return
    }
    d = ""
    if (match(text, /Default: .*\.$/))
        d = unescape(substr(text, RSTART + 9, RLENGTH - 10))
    n = split(names, a, " ")
    for (i = 1; i <= n; i++)
        print sect "\t" a[i] "\t" d
    names = ""
    text = ""
}
/^```/ { flush(); code = !code; next }
code { next }
/^# / { flush(); sect = substr($0, 3); next }
/^\*-/ {
    flush()
    line = $0
    while (match(line, /\*-[^*]*\*/)) {
        names = names " " substr(line, RSTART + 1, RLENGTH - 2)
        line = substr(line, RSTART + RLENGTH)
    }
    next
}
/^\t/ { if (names != "") { t = $0; sub(/^\t/, "", t); text = text (text == "" ? "" : " ") t }; next }
{ flush() }
END { flush() }
