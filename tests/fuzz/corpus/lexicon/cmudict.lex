;;; a CMUdict-style file written for the fuzzer
BOOK  B UH1 K
READ  R IY1 D
READ(2)  R EH1 D
ZOË  Z OW1 IY0 # a trailing comment
