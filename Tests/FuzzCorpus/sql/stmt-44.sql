SELECT * FROM svv_table_info;
