#crfpipe-tagdict 1
the	DET	2	DET	4294967295
