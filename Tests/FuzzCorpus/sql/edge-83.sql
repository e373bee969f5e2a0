SELECT cume_dist() OVER (ORDER BY a), percent_rank() OVER (), dense_rank() OVER (PARTITION BY NULL ORDER BY NULL) FROM t;
