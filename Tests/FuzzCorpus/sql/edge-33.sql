SELECT b SIMILAR TO '((((((((((' , b LIKE '%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%b', b LIKE 'a' ESCAPE '' FROM t;
