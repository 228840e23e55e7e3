# CoNLL-2000 chunking template where the current word and tag also
# condition the label pair: the '*' patterns feed both the unigram
# weights mu(y,x) and the bigram weights lambda(y',y,x), so a transition
# such as B-NP -> I-NP can depend on the word and tag at that position.
# Columns of the input: 0 = word, 1 = part-of-speech tag.

# Words in a five-token window; the current one (*02) is in both roles.
U00:%x[-2,0]
U01:%x[-1,0]
*02:%x[0,0]
U03:%x[1,0]
U04:%x[2,0]
U05:%x[-1,0]/%x[0,0]
U06:%x[0,0]/%x[1,0]

# Tags in the same window; the current one (*12) is in both roles.
U10:%x[-2,1]
U11:%x[-1,1]
*12:%x[0,1]
U13:%x[1,1]
U14:%x[2,1]
U15:%x[-2,1]/%x[-1,1]
U16:%x[-1,1]/%x[0,1]
U17:%x[0,1]/%x[1,1]
U18:%x[1,1]/%x[2,1]
U20:%x[-2,1]/%x[-1,1]/%x[0,1]
U21:%x[-1,1]/%x[0,1]/%x[1,1]
U22:%x[0,1]/%x[1,1]/%x[2,1]

# Label transitions, independent of the input.
B
