SELECT date_trunc('month', g), extract(year FROM d), dateadd(day, 30, d), datediff(day, d, '2025-01-01'), to_char(g, 'YYYY-MM-DD HH24:MI') FROM t;
