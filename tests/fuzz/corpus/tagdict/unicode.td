#crfpipe-tagdict 1
École	PROPN	2
école	NOUN	1
ÉCOLE	X	1
