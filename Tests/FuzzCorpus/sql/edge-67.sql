CREATE TABLE rl (a int ENCODE runlength, b varchar(4) ENCODE bytedict); INSERT INTO rl SELECT a, h FROM t; SELECT * FROM rl WHERE a = 1 OR b = 'abc' OR b < 'zzzz';
