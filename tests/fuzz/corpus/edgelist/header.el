# tcsparse edgelist: rows=3 cols=5 base=0
0 4 1
2 1 2.5e-3
