SELECT count(*), count(b), sum(c), avg(f), min(d), max(g), stddev(i), median(c) FROM t;
