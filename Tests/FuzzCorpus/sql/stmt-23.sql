SELECT b FROM t WHERE b ILIKE '%O%' OR b SIMILAR TO 't(w|x)o' OR b BETWEEN 'a' AND 'p';
