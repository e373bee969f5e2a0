SELECT t.a, s.v FROM t JOIN s ON t.a = s.k WHERE s.v LIKE 'b%';
