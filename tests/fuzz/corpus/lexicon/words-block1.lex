$one two  three
four	five
