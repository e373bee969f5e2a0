SELECT substring(b, 2, 3), upper(b), lower(h), length(b), trim(h), replace(b, 'o', '0'), split_part('a,b,c', ',', 2), position('w' IN b) FROM t;
