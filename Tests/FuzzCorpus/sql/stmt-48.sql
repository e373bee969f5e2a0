SELECT 'it''s', E'tab\tnew', "a" FROM t AS "T" WHERE "T".a = 1 -- comment
/* block */;
