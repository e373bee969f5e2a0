SELECT split_part(b, 'o', -9223372036854775808), split_part(b, '', 9223372036854775807) FROM t;
