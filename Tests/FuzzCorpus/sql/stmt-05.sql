SELECT row_number() OVER (ORDER BY a DESC), rank() OVER (PARTITION BY h ORDER BY i), lag(b, 1, 'x') OVER (ORDER BY a), lead(c) OVER (ORDER BY a) FROM t;
