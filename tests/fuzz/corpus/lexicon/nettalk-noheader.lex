cat	k@t	>1<	0
ox	AX	1>	0
