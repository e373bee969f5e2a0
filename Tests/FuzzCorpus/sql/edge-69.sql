SELECT * FROM t a, t b, t c, t d, t e2, t f2 WHERE a.a = b.a;
