SELECT * FROM t WHERE h = repeat('a', 70000) OR b = '';
