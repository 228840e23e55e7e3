# NETtalk feature set 5-grm+ (Lavergne, Cappé & Yvon 2010, §5.1.1; see README.md).
# Column 'letter' (nettalk_reader); every pattern feeds μ(y,x) and λ(y',y,x) ('*').
# 5-grm plus the even windows that hold the current letter: 2 letters
# (left, right) and 4 letters (left, right), as the paper's 3-grm+ example
# (le, em in 'lemma') shows.
B
U00:bias
*01:%x[0,letter]
*03:%x[-1,letter]/%x[0,letter]/%x[1,letter]
*05:%x[-2,letter]/%x[-1,letter]/%x[0,letter]/%x[1,letter]/%x[2,letter]
*2L:%x[-1,letter]/%x[0,letter]
*2R:%x[0,letter]/%x[1,letter]
*4L:%x[-2,letter]/%x[-1,letter]/%x[0,letter]/%x[1,letter]
*4R:%x[-1,letter]/%x[0,letter]/%x[1,letter]/%x[2,letter]
