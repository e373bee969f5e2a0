SELECT x, y, count(*) FROM e GROUP BY x, y ORDER BY x;
