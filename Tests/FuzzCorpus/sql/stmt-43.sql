SELECT * FROM pg_table_def WHERE tablename = 't';
