SELECT extract(epoch FROM g), extract(millennium FROM d), date_part('dow', g) FROM t;
