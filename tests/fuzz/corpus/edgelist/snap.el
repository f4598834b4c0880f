# SNAP style
# FromNodeId	ToNodeId
0	1
1	2
2	0
