#crfpipe-tagdict 1
Éco	|ePROPN	2
école	NOUN	1
ÉCOLE	X	1
