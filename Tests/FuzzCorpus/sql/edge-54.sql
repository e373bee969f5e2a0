SELECT 9223372036854775807::bigint + 1, (-32768)::smallint - 1::smallint, 2147483647::integer + 1::integer;
