#crfpipe-tagdict 1
	DET	1
