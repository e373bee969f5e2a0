SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY c), percentile_disc(0.9) WITHIN GROUP (ORDER BY i) FROM t;
