SELECT dateadd(year, 2147483647, d) FROM t;
