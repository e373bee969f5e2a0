CREATE TABLE big (x decimal(38,38), y varchar(65535), z char(4096)) DISTKEY(x) SORTKEY(y, z);
