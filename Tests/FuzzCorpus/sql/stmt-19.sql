SELECT h, count(DISTINCT b), approximate count(DISTINCT a) FROM t GROUP BY h HAVING count(*) > 0 ORDER BY 1;
