SET search_path TO ''; SELECT * FROM t;
