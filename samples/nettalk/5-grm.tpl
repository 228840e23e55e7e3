# NETtalk feature set 5-grm (Lavergne, Cappé & Yvon 2010, §5.1.1; see README.md).
# Column 'letter' (nettalk_reader); every pattern feeds μ(y,x) and λ(y',y,x) ('*').
# Centred windows of 0, 1, 3 and 5 letters.
B
U00:bias
*01:%x[0,letter]
*03:%x[-1,letter]/%x[0,letter]/%x[1,letter]
*05:%x[-2,letter]/%x[-1,letter]/%x[0,letter]/%x[1,letter]/%x[2,letter]
