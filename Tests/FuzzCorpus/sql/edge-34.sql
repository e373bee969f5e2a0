SELECT date_trunc('century', '0001-01-01'::timestamp), date_trunc('week', '0001-01-01'::date), last_day('9999-12-31'::date), add_months('9999-12-31'::date, 2147483647);
