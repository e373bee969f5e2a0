SELECT count(*) FROM t GROUP BY ROLLUP(a, b);
