SELECT round(c, 1), trunc(f), abs(i), mod(i, 7), power(2, a), sqrt(abs(f)), floor(k), ceil(k), ln(2.0), exp(1) FROM t;
