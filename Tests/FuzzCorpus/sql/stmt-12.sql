SELECT CASE WHEN a > 2 THEN 'big' WHEN a IS NULL THEN NULL ELSE 'small' END, coalesce(b, 'none'), nullif(a, 1), nvl(c, 0) FROM t;
