#crfpipe-tagdict 1
the	DET	2
the	PRON	1
