SELECT regexp_substr(b, '[', 1), regexp_count(b, '\\', -5), regexp_instr(b, 'o', 9223372036854775807) FROM t;
