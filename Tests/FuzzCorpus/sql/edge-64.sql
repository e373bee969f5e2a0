CREATE TABLE idt3 (x smallint IDENTITY(32767, 1), y int); INSERT INTO idt3 (y) VALUES (1), (2);
