SELECT months_between('0001-01-01'::date, '9999-12-31'::date), next_day('9999-12-31'::date, 'monday');
