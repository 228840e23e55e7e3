hdr
café	kafeX	1<<>0	0
