# columns by name, regexes, comments
U00:%x[0,word]/%x[-2,pos]/%x[2,1]
U01:%M[0,word,"(\p{Lu}+)"]
*02:%T[-1,word,"^[0-9]+$"]
B03:%x[0,chunk]
B

U%m[1,0,"."]%X[0,0]
