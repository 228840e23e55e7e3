úhdheader line
and a0
f	-	1	0t	k@t0	0
