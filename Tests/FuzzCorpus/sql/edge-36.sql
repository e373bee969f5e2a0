SELECT 1e308 * 10, -1e308 * 10, 1e-320 / 1e300, 'NaN'::float = 'NaN'::float, CAST('1e39' AS real);
