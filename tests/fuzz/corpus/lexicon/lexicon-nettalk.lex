A free-text header line
and another
cat	k@t	>1<	0
abbey	@bi--	1<0<<	2
ox	AX	1>	0
