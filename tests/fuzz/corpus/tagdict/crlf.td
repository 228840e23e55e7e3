#crfpipe-tagdict 1
the	DET	2
