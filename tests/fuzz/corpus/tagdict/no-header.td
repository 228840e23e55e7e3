the	DET	1
