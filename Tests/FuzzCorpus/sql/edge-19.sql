SELECT power(10, 400), power(-8, 0.333), exp(1000), ln(0), sqrt(-1), log(0) FROM t;
