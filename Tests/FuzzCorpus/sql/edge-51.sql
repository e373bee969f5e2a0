SELECT nullif(a, 'x'), coalesce(a, b), greatest(d, g), least(e, 1) FROM t;
