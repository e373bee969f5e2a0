SELECT to_date('99999999', 'YYYYMMDD'), to_timestamp('9999999999999', 'YYYY'), to_date('', '');
