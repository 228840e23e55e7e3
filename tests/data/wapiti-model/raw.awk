# (run with LC_ALL=C: the lowering and suffixes are bytes, as for any awk)
# word, xpos, upos columns -> Wapiti data with its observations
function emit(   i, w, lw, s) {
    for (i = 1; i <= n; i++) {
        w = W[i]; lw = tolower(w)
        s = "u:w=" w " u:l=" lw " u:s3=" substr(lw, length(lw) > 3 ? length(lw) - 2 : 1)
        s = s " u:pw=" (i > 1 ? tolower(W[i - 1]) : "_") " u:nw=" (i < n ? tolower(W[i + 1]) : "_")
        s = s " *:p=" P[i] " b:pp=" (i > 1 ? P[i - 1] : "_") "/" P[i]
        if (w ~ /^[A-Z]/) s = s " b:cap"
        if (w ~ /[0-9]/) s = s " *:digit"
        print s " " U[i]
    }
    print ""
    n = 0
}
NF == 0 { if (n) emit(); next }
{ n++; W[n] = $1; P[n] = $2; U[n] = $3 }
END { if (n) emit() }
