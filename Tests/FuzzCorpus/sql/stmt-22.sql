SELECT greatest(a, j), least(c, 0), decode(a, 1, 'one', 2, 'two', 'other') FROM t;
