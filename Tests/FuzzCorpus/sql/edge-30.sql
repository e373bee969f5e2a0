SELECT chr(-1), chr(1114112), chr(0), ascii(''), translate(b, '', 'x') FROM t;
