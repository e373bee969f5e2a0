SELECT percentile_cont(2) WITHIN GROUP (ORDER BY a), percentile_disc(-1) WITHIN GROUP (ORDER BY a) FROM t;
