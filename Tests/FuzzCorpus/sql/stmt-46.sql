SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS x(p, q) WHERE p > 1;
