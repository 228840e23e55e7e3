# Part-of-speech features over the CoNLL-U `form` column (UPOS is the label).
# Columns are referred to by name, so the same template works on XML corpora
# whose Token annotations carry a `form` feature, and on tokenizer output
# through the tagger's input-columns (form=string).  Chosen on the EWT dev
# set (samples/pos/README.md): each group below gained there; extra
# patterns tried since (suffix 5, words at +-2 lowercased, word-conditioned
# transitions) gained less than 0.1 point for a slower tagger.

# the word and its neighbours, as written
U00:%x[-2,form]
U01:%x[-1,form]
U02:%x[0,form]
U03:%x[1,form]
U04:%x[2,form]
# lowercased: the word, its neighbours, and word bigrams in a 3-word window
U05:%X[-1,form]/%X[0,form]
U06:%X[0,form]/%X[1,form]
U07:%X[0,form]
U08:%X[-1,form]
U09:%X[1,form]
U27:%X[-1,form]/%X[1,form]
# suffixes and prefixes up to 4 characters (of the neighbours: suffix 3)
U10:%s[0,form,1]
U11:%s[0,form,2]
U12:%s[0,form,3]
U13:%s[0,form,4]
U14:%p[0,form,1]
U15:%p[0,form,2]
U16:%p[0,form,3]
U17:%p[0,form,4]
U18:%s[-1,form,3]
U19:%s[1,form,3]
# word shapes (McDonald's -> XxXx'x) of the word and its neighbours
U20:%w[0,form]
U21:%w[-1,form]/%w[0,form]
U22:%w[0,form]/%w[1,form]
# capitalisation, digit, hyphen tests (ICU regular expressions); a capital
# after a given word tells a sentence start from a proper noun
U23:%t[0,form,"^\p{Lu}"]/%x[-1,form]
U24:%t[0,form,"\p{Nd}"]
U25:%t[0,form,"-"]
U26:%t[0,form,"^\p{Lu}+$"]
# the label pair
B
