SELECT round(c, 2147483647), round(f, -2147483648), trunc(c, -9223372036854775808), round(l, 40) FROM t;
