SELECT left(b, -9223372036854775808), right(b, -9223372036854775808), lpad(b, -5), rpad(b, 3, '') FROM t;
