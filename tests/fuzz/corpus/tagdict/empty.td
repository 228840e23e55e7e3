#crfpipe-tagdict 1
