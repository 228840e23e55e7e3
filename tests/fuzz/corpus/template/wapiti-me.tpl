#!wapiti-me
# Wapiti patterns over two columns (0: the word, 1: its PTB tag), chosen to
# exercise every part of Wapiti's pattern language crfpipe must reproduce:
# rows outside the sentence (_x-1 ... _x-#), lower- and upper-case type
# letters and commands, its own regexes (classes, '?', lazy '*', anchors),
# rows counted from the ends (@), patterns without identifiers that share
# observations, both-kind (*) and bigram patterns.
U00:%x[-2,0]
U01:%x[-1,0]
U02:%x[0,0]
u03:%x[1,0]
U04:%X[2,0]
U05:%x[-1,0]/%x[0,0]
U06:%x[0,1]
U07:%t[0,0,"^\u"]
U08:%m[0,0,"\a\a?$"]
U09:%t[0,0,"\d"]
U10:%M[0,0,"^.?.?\l*"]
U11:%m[0,0,"\p\P*\p"]   # lazy star between two punctuation bytes
U12:%t[0,0,"^\U\L*$"]
U17:%m[0,0,"\d*\.?\d"]
U18:%m[0,0,"e.*s"]
U19:%M[0,0,".$"]/%t[0,0,"^$"]/%m[0,0,"\w\W"]
U20:%m[0,0,"a$b"]/%m[0,0,"^\S\S?\S?"]/%m[0,0,"\A\A"]/%t[1,0,"\s"]
U21:%m[-1,0,"x?_\D\-"]/%m[0,0,"n\'t"]
U%x[0,1]/x
U%x[1,1]/x
*13:%x[-1,1]
b14:%x[0,1]
B
U15:%x[@1,0]/%x[@-1,1]
U16:%x[-6,0]/%x[7,0]
