UNLOAD ('SELECT * FROM t') TO '/nonexistent/prefix' FORMAT PARQUET;
