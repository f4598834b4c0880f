# tcsparse edgelist: rows=two
0 1
