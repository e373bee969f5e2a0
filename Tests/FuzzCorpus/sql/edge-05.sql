SELECT datediff(year, d, g), datediff(month, g, d) FROM t;
