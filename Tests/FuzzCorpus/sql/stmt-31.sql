SET datestyle TO 'ISO, DMY'; SELECT '01/02/2024'::date;
