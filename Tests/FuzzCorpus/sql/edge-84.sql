SELECT ratio_to_report(a) OVER (), stddev(a) OVER (ORDER BY a ROWS 2 PRECEDING), median(a) OVER (PARTITION BY e) FROM t;
