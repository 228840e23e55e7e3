# Options listed by `crfpipe COMMAND --help`, one per line:
#     SECTION <tab> NAME <tab> DEFAULT
# (DEFAULT empty when the help gives none; an option with an alias gives a
# line for each name).  Help lines: "Section title:", then option lines
# "  -o, --output FILE     help..." whose help starts at column 25 or on the
# next line, continued by lines indented 24 spaces.
function flush(   n, i, a, d) {
    if (names == "")
        return
    d = ""
    if (match(text, /\(default: [^()]*\)$/))
        d = substr(text, RSTART + 10, RLENGTH - 11)
    n = split(names, a, " ")
    for (i = 1; i <= n; i++)
        print sect "\t" a[i] "\t" d
    names = ""
    text = ""
}
/^[A-Z][^:]*:$/ { flush(); sect = substr($0, 1, length($0) - 1); next }
/^  -/ {
    flush()
    head = $0
    text = ""
    if (length($0) > 24 && substr($0, 23, 2) == "  ") {
        head = substr($0, 1, 22)
        text = substr($0, 25)
    }
    n = split(head, w, /[ ,]+/)
    for (i = 1; i <= n; i++)
        if (w[i] ~ /^-/)
            names = names " " w[i]
    next
}
/^                        [^ ]/ { if (names != "") text = text (text == "" ? "" : " ") substr($0, 25); next }
{ flush() }
END { flush() }
