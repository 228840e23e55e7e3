# Entity and surface-form scores of a tagged column file, as the WNUT-17
# shared task reports them (its scorer was not copied; this follows its
# definitions):
#   entities       exact (first token, last token, type) matches;
#   surface forms  the distinct (type, text) pairs of the gold and of the
#                  predicted entities, each counted once however often it
#                  occurs -- rewarding systems that find rare forms.
# Input: whitespace-separated columns, the gold label and the prediction in
# the last two (what `crfpipe tag --to conll` writes), blank lines between
# sentences.  Labels are BIO/BIOES (B-x, I-x, E-x, S-x, O).
#   awk -f score.awk tagged.conll
function flush(   t) {
    close_ent("g"); close_ent("p")
}
function close_ent(w,   key) {
    if (open[w] == "") return
    key = start[w] SUBSEP NR SUBSEP open[w]
    if (w == "g") { gold[key] = 1; ng++; gs[open[w] SUBSEP text[w]] = 1 }
    else          { pred[key] = 1; np++; ps[open[w] SUBSEP text[w]] = 1 }
    open[w] = ""
}
function step(w, label, word,   tag, type) {
    if (label == "O" || label == "") { close_ent(w); return }
    tag = substr(label, 1, 1); type = substr(label, 3)
    if (tag == "B" || tag == "S" || open[w] != type) {
        close_ent(w)
        open[w] = type; start[w] = NR; text[w] = word
    } else {
        text[w] = text[w] " " word
    }
    if (tag == "E" || tag == "S") { endl[w] = NR; close_at(w) }
}
# an entity closed by E-/S- ends at this line
function close_at(w,   key) {
    key = start[w] SUBSEP (NR + 1) SUBSEP open[w]
    if (w == "g") { gold[key] = 1; ng++; gs[open[w] SUBSEP text[w]] = 1 }
    else          { pred[key] = 1; np++; ps[open[w] SUBSEP text[w]] = 1 }
    open[w] = ""
}
NF == 0 { flush(); next }
{ step("g", $(NF - 1), $1); step("p", $NF, $1) }
END {
    flush()
    for (k in pred) if (k in gold) c++
    for (k in ps) { nps++; if (k in gs) cs++ }
    for (k in gs) ngs++
    report("entities", c, ng, np)
    report("surface", cs, ngs, nps)
}
function report(what, c, g, p,   P, R, F) {
    P = p ? 100 * c / p : 0; R = g ? 100 * c / g : 0; F = P + R ? 2 * P * R / (P + R) : 0
    printf "%-9s precision %6.2f  recall %6.2f  F1 %6.2f  (gold %d, predicted %d, correct %d)\n", what, P, R, F, g, p, c
}
