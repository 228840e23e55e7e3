book	b U k
read	r i d
read	r E d
