SELECT a, count(*) FILTER (WHERE a > 1) FROM t GROUP BY a;
