# Part-of-speech features over the CoNLL-U `form` column (UPOS is the label).
# Columns are referred to by name, so the same template works on XML corpora
# whose Token annotations carry a `form` feature.

# the word and its neighbours
U00:%x[-2,form]
U01:%x[-1,form]
U02:%x[0,form]
U03:%x[1,form]
U04:%x[2,form]
U05:%x[-1,form]/%x[0,form]
U06:%x[0,form]/%x[1,form]
# lowercased word
U07:%X[0,form]
# suffixes and prefixes (ICU regular expressions)
U10:%m[0,form,".{1}$"]
U11:%m[0,form,".{2}$"]
U12:%m[0,form,".{3}$"]
U13:%m[0,form,".{4}$"]
U14:%m[0,form,"^.{1}"]
U15:%m[0,form,"^.{2}"]
U16:%m[0,form,"^.{3}"]
# word shape
U20:%t[0,form,"^\p{Lu}"]
U21:%t[0,form,"^\p{Lu}+$"]
U22:%t[0,form,"\p{Nd}"]
U23:%t[0,form,"-"]
U24:%t[0,form,"^\p{P}+$"]
# the label pair, conditioned on nothing and on the current word's suffix
B
B30:%m[0,form,".{2}$"]
