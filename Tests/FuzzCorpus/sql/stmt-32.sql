INSERT INTO t (a, b) VALUES (10, 'ten'), (11, NULL); SELECT count(*) FROM t;
