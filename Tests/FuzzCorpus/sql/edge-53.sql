SELECT a::varchar(0), a::char(0), b::varchar(65536), ''::char(65535) FROM t;
