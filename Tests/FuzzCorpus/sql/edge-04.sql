SELECT datediff(microsecond, '0001-01-01'::timestamp, '9999-12-31'::timestamp);
