# NETtalk feature set 3-grm- (Lavergne, Cappé & Yvon 2010, §5.1.1; see README.md).
# Column 'letter' (nettalk_reader); every pattern feeds μ(y,x) and λ(y',y,x) ('*').
# The 3-letter window alone (no window of 0 or 1 letters): M is as sparse as it gets.
*03:%x[-1,letter]/%x[0,letter]/%x[1,letter]
