# tcsparse edgelist: rows=2 cols=2 base=0
0 5
