# pos-td.tpl plus what an external lexicon says about the word and its
# neighbours: features lex, lexlc, lextop of the stage tagdict reading a
# lexicon of another tagged corpus (lexicon.xml builds one; `make models`
# builds wsj.lexicon from the Penn Treebank tags of CoNLL-2000's train.txt,
# read in place: research-use data, never shipped).  Its classes are in the
# lexicon's own tag set (NN|VB, NNP), which need not be the tagger's: the
# PTB tags tell proper from common nouns for words EWT's training data has
# not seen or has seen rarely.  Chosen on the EWT dev set
# (samples/pos/README.md): 95.66 % against 95.45 % for pos-td.tpl.  The
# model needs both tagdict stages before the tagger (eval-lex.xml,
# annotate-lex.xml).

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
# the lexicon's class of the word and its neighbours, of the lowercased
# word, in pairs, and with the training dictionary's class
U50:%x[0,lex]
U51:%x[-1,lex]
U52:%x[1,lex]
U53:%x[0,lexlc]
U54:%x[0,lextop]/%x[0,amb]
U55:%x[-1,lex]/%x[0,lex]
U56:%x[0,lex]/%x[1,lex]
U57:%x[0,lex]/%x[0,amb]
# the label pair
B
