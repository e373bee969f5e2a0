SELECT CAST(9223372036854775807 AS smallint), CAST(1e19 AS bigint), CAST('NaN'::float AS bigint), CAST('Infinity'::float AS decimal(10,2));
