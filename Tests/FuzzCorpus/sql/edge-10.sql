SELECT interval '9223372036854775807 days', d + interval '2147483647 years' FROM t;
