UPDATE t SET b = upper(b), c = c * 2 WHERE a < 3;
