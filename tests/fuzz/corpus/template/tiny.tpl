# small POS template for tests
U00:%x[-1,form]
U01:%x[0,form]
U02:%x[1,form]
U03:%m[0,form,".{2}$"]
U04:%t[0,form,"^\p{Lu}"]
B
