SELECT '1e10'::float, 'NaN'::double precision, 'infinity'::float4, 0.1 + 0.2;
