SELECT 1 + 2 * 3, 'a' || 'b', NULL IS NULL, 7 / 2, 7 % 3, -(-1), 2 * 10;
