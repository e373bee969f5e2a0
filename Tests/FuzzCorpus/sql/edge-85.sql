SELECT * FROM t ORDER BY random();
