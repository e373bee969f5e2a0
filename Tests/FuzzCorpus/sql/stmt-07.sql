SELECT * FROM t LEFT JOIN s ON t.a = s.k FULL OUTER JOIN e ON e.x = t.a;
