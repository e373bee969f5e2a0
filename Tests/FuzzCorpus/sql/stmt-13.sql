SELECT CAST(c AS varchar(10)), c::integer, '2024-02-29'::date + 1, g::date, CAST('12.5' AS decimal(5,2)), 'true'::boolean FROM t;
