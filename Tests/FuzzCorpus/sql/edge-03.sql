SELECT dateadd(microsecond, -9223372036854775808, g) FROM t;
