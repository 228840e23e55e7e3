#crfpipe-tagdict 1
the		1
