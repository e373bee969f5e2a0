SELECT decode(a, NULL, 1), nvl2(a, b, c), bpcharcmp(h, b) FROM t;
