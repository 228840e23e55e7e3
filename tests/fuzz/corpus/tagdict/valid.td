#crfpipe-tagdict 1
The	DET	1
run	NOUN	1	VERB	2
the	DET	2
Run	VERB	1
#ff	B-person	3
