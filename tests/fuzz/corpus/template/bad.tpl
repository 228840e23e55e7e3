# A template with an error on line 5 (for test_templates).
U00:%x[0,0]
U01:%x[-1,0]

U02:%x[0,0
B
