SELECT md5(b), sha1(b), sha2(b, 9223372036854775807), func_sha1(b), crc32(b), fnv_hash(b) FROM t;
