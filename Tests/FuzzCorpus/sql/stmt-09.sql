SELECT a, (SELECT max(v) FROM s WHERE s.k = t.a) FROM t;
