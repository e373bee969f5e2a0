SELECT i * i, i + 9223372036854775807, j * j * j * j, sum(i), avg(i), sum(l * l) FROM t GROUP BY i, j, l;
