SET datestyle TO 'SQL, DMY'; SELECT d, g FROM t;
