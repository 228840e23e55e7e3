# pos.tpl plus what a tag dictionary of the training data says about the
# word and its neighbours (features amb, amblc, ambtop of the stages
# tagdict_build / tagdict): the word's ambiguity class (the UPOS tags it had
# in training, e.g. NOUN|VERB), that of its lowercased form, and its
# commonest tag.  Chosen on the EWT dev set (samples/pos/README.md): 95.45 %
# against 95.01 % for pos.tpl.  The model needs the tagdict stage before
# the tagger (eval-td.xml, annotate-td.xml).

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
# the ambiguity classes of the word and its neighbours, alone, in pairs,
# and with the word
U30:%x[0,amb]
U31:%x[-1,amb]
U32:%x[1,amb]
U33:%x[-1,amb]/%x[0,amb]
U34:%x[0,amb]/%x[1,amb]
U35:%x[-1,amb]/%x[1,amb]
U36:%x[0,amb]/%x[0,form]
# the same for the lowercased word, and the commonest tags
U40:%x[0,amblc]
U41:%x[-1,amblc]
U42:%x[1,amblc]
U43:%x[0,ambtop]
U44:%x[-1,ambtop]
U45:%x[1,ambtop]
# the label pair
B
