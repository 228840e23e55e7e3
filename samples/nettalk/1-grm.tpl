# NETtalk feature set 1-grm (Lavergne, Cappé & Yvon 2010, §5.1.1; see README.md).
# Column 'letter' (nettalk_reader); every pattern feeds μ(y,x) and λ(y',y,x) ('*').
# Windows of 0 and 1 letters.
B
U00:bias
*01:%x[0,letter]
