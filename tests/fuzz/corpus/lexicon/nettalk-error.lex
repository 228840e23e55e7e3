Header
cat	k@t	>1<	0
bad	bd	11	0
