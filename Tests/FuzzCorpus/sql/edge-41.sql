SELECT median(l), stddev_pop(i), var_samp(l), approximate percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM t;
