SELECT strtol('zzzzzzzzzzzzzzzzzzzzzzz', 36), strtol('ff', 99), strtol('', 0), to_hex(-9223372036854775808);
