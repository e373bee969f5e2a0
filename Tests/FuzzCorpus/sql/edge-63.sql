CREATE TABLE idt2 (x int IDENTITY(1, 0), y int); INSERT INTO idt2 (y) VALUES (1);
