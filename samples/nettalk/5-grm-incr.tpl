# NETtalk 5-grm with incremental admission (lavergne2010 §5.4): the 3-letter
# windows wait for their centre letter, the 5-letter windows for their 3-letter
# window.  Train with a chain of at least three trainers, e.g.
#   --trainer sgd-l1,sgd-l1,sgd-l1,lbfgs --4.rho1 0   (see README.md)
# Column 'letter' (nettalk_reader).
B
U00:bias
*01:%x[0,letter]
*03:%x[-1,letter]/%x[0,letter]/%x[1,letter]
*05:%x[-2,letter]/%x[-1,letter]/%x[0,letter]/%x[1,letter]/%x[2,letter]
#!after *03 *01
#!after *05 *03
