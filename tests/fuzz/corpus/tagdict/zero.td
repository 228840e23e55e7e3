#crfpipe-tagdict 1
the	DET	0
