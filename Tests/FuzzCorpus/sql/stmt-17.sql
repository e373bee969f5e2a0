SELECT listagg(b, ',') WITHIN GROUP (ORDER BY b) FROM t;
