# Feature template for CoNLL-2000 chunking (the classic CRF++ layout).
# Columns of the input: 0 = word, 1 = part-of-speech tag.
# Every pattern looks at a window of five tokens around the current one,
# from two to the left (-2) to two to the right (+2).

# Words on their own: strong evidence, but sparse.
U00:%x[-2,0]
U01:%x[-1,0]
U02:%x[0,0]
U03:%x[1,0]
U04:%x[2,0]
# Word pairs touching the current token capture fixed phrases.
U05:%x[-1,0]/%x[0,0]
U06:%x[0,0]/%x[1,0]

# Tags generalise over unseen words.
U10:%x[-2,1]
U11:%x[-1,1]
U12:%x[0,1]
U13:%x[1,1]
U14:%x[2,1]
# Tag pairs and triples approximate the local syntax that chunk
# boundaries follow.
U15:%x[-2,1]/%x[-1,1]
U16:%x[-1,1]/%x[0,1]
U17:%x[0,1]/%x[1,1]
U18:%x[1,1]/%x[2,1]
U20:%x[-2,1]/%x[-1,1]/%x[0,1]
U21:%x[-1,1]/%x[0,1]/%x[1,1]
U22:%x[0,1]/%x[1,1]/%x[2,1]

# Label transitions, independent of the input.
B
