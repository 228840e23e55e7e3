# entities.tpl plus what a lexicon of another tagged corpus says about the
# word and its neighbours (features lex, lexlc of the stage tagdict with
# output=lex; samples/pos/lexicon.xml builds the lexicon, `make models`
# from the Penn Treebank tags of CoNLL-2000's train.txt, read in place and
# never shipped): NNP and NNPS mark words that are names in newswire, where
# tweets lose the capital letters.  Chosen on the WNUT-17 dev set (README):
# 40.15 against 37.35 for entities.tpl.  The model needs the lexicon stage
# before the tagger (tag-lex.xml, annotate-lex.xml).
U00:%x[-2,word]
U01:%x[-1,word]
U02:%x[0,word]
U03:%x[1,word]
U04:%x[2,word]
U05:%X[-1,word]/%X[0,word]
U06:%X[0,word]/%X[1,word]
U07:%X[0,word]
U08:%X[-1,word]
U09:%X[1,word]
U10:%s[0,word,1]
U11:%s[0,word,2]
U12:%s[0,word,3]
U13:%s[0,word,4]
U14:%p[0,word,1]
U15:%p[0,word,2]
U16:%p[0,word,3]
U17:%p[0,word,4]
U20:%w[0,word]
U21:%w[-1,word]/%w[0,word]
U22:%w[0,word]/%w[1,word]
U23:%t[0,word,"^\p{Lu}"]
U24:%t[0,word,"\p{Nd}"]
U25:%t[0,word,"^[@#]"]
U26:%t[0,word,"^\p{Lu}+$"]
U27:%t[-1,word,"^\p{Lu}"]/%t[0,word,"^\p{Lu}"]/%t[1,word,"^\p{Lu}"]
U30:%x[-2,pos]
U31:%x[-1,pos]
U32:%x[0,pos]
U33:%x[1,pos]
U34:%x[2,pos]
U35:%x[-1,pos]/%x[0,pos]
U36:%x[0,pos]/%x[1,pos]
U37:%x[0,pos]/%w[0,word]
# what the training data's tag dictionary says (features of the stages
# tagdict_build / tagdict, key word, label ner): the entity labels each word
# had, those of its lowercase, its commonest label (2026-11-27, dev F1
# 34.23 -> 37.35)
U70:%x[0,amb]
U71:%x[-1,amb]
U72:%x[1,amb]
U73:%x[-1,amb]/%x[0,amb]
U74:%x[0,amb]/%x[1,amb]
U75:%x[0,amblc]
U76:%x[-1,amblc]
U77:%x[1,amblc]
U78:%x[0,ambtop]
U79:%x[-1,ambtop]
U80:%x[1,ambtop]
# the lexicon's class of the word and its neighbours, of the lowercased
# word, and the pairs (-1,0), (0,+1)
U90:%x[0,lex]
U91:%x[-1,lex]
U92:%x[1,lex]
U93:%x[0,lexlc]
U94:%x[-1,lex]/%x[0,lex]
U95:%x[0,lex]/%x[1,lex]
B
