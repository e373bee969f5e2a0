SELECT listagg(b, repeat('x', 60000)) FROM t;
