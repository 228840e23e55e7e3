# Letter features for grapheme-to-phoneme tagging: g2p.tpl (below) with seven
# more unigram windows of up to 9 letters (U17-U23), chosen on the dev part
# with a quarter of CMUdict's train part (README, "The full CMUdict model").
#
# Letter features for grapheme-to-phoneme tagging, after the NETtalk feature
# sets of Lavergne, Cappé & Yvon (2010, §5.1.1): windows of k letters centred
# on the current one (k = 1, 3, 5: their "5-grm") tested together with the
# label (the current letter also with the label pair, `*`), plus, as unigrams only, the single
# letters of the window, the off-centre letter n-grams in it (their "++"
# sets) and the 7-letter window.  Column 0 is the grapheme (graphemes stage).
B
*01:%x[0,0]
U02:%x[-1,0]/%x[0,0]/%x[1,0]
U03:%x[-2,0]/%x[-1,0]/%x[0,0]/%x[1,0]/%x[2,0]
U04:%x[-1,0]
U05:%x[1,0]
U06:%x[-2,0]
U07:%x[2,0]
U08:%x[-1,0]/%x[0,0]
U09:%x[0,0]/%x[1,0]
U10:%x[-2,0]/%x[-1,0]/%x[0,0]
U11:%x[0,0]/%x[1,0]/%x[2,0]
U12:%x[-2,0]/%x[-1,0]/%x[0,0]/%x[1,0]
U13:%x[-1,0]/%x[0,0]/%x[1,0]/%x[2,0]
U14:%x[-3,0]/%x[-2,0]/%x[-1,0]/%x[0,0]/%x[1,0]/%x[2,0]/%x[3,0]
U15:%x[-3,0]/%x[-2,0]/%x[-1,0]
U16:%x[1,0]/%x[2,0]/%x[3,0]
U17:%x[-4,0]/%x[-3,0]/%x[-2,0]/%x[-1,0]/%x[0,0]/%x[1,0]/%x[2,0]/%x[3,0]/%x[4,0]
U18:%x[-4,0]/%x[-3,0]/%x[-2,0]/%x[-1,0]/%x[0,0]
U19:%x[0,0]/%x[1,0]/%x[2,0]/%x[3,0]/%x[4,0]
U20:%x[-2,0]/%x[-1,0]/%x[0,0]/%x[1,0]/%x[2,0]/%x[3,0]
U21:%x[-3,0]/%x[-2,0]/%x[-1,0]/%x[0,0]/%x[1,0]/%x[2,0]
U22:%x[-3,0]/%x[-2,0]/%x[-1,0]/%x[0,0]
U23:%x[0,0]/%x[1,0]/%x[2,0]/%x[3,0]
