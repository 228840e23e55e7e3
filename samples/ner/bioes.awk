# BIO (IOB2) entity labels to BIOES: a single-token entity becomes S-x and
# the last token of a longer one E-x, so the tagger learns where entities
# end as well as where they start.  Spans are unchanged, and crfpipe's
# span and chunk scoring read both encodings.
#   awk -v col=N -f bioes.awk in.conll > out.conll   (col: label column,
#   1-based; default the last)
function out(i, lab,   f, k, s) {
    if (lab != "") { split(line[i], f, /[ \t]+/); f[c[i]] = lab; s = f[1]; for (k = 2; k <= nf[i]; k++) s = s sep f[k]; print s }
    else print line[i]
}
function flush(   i, cur, nxt, tag, ntag, lab) {
    for (i = 1; i <= n; i++) {
        cur = lbl[i]; nxt = i < n ? lbl[i + 1] : "O"
        tag = substr(cur, 1, 2); ntag = substr(nxt, 1, 2)
        lab = ""
        if (tag == "B-" && !(ntag == "I-" && substr(nxt, 3) == substr(cur, 3))) lab = "S-" substr(cur, 3)
        else if (tag == "I-" && !(ntag == "I-" && substr(nxt, 3) == substr(cur, 3))) lab = "E-" substr(cur, 3)
        out(i, lab)
    }
    n = 0
}
BEGIN { sep = "" }
NF == 0 { flush(); print; next }
{
    if (sep == "") sep = index($0, "\t") ? "\t" : " "
    n++; line[n] = $0; nf[n] = NF; c[n] = col ? col : NF; lbl[n] = $(c[n])
}
END { flush() }
