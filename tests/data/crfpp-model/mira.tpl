# CRF++ template for the MIRA test: the word, its PTB tag, the tag pair
U00:%x[0,0]
U01:%x[0,1]
U02:%x[-1,1]/%x[0,1]
B
