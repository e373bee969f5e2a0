SELECT a, b, c, d, e, f, g, h, i, j, k, l FROM t ORDER BY a NULLS FIRST;
