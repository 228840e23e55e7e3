Header of the file, free text
cat	k@t	>1<	0
abbey	@bi--	1<0<<	2
bad	bd	11	0
two	t-u	>1<	1 
