# Columns addressed by name and by index, for test_templates.
U00:%x[0,word]/%x[0,1]
U01:%X[-1,word]
*02:%x[0,pos]
U03:%T[0,0,"[[:upper:]]"]
U04:%M[0,word,"\p{L}+"]
U%x[0,0]
B
