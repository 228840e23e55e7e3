a	a	1	0
b	b	1	0
c	k	1	0
d	d	1	0
e	i	1	0
f	f	1	0
g	J	1	0
h	h	1	0
i	A	1	0
j	J	1	0
k	k	1	0
l	l	1	0
