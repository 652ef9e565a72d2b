-- pgbench script: the floor, one trivial round trip in the fence's place.
\set id random(1, 1000)
BEGIN;
SELECT 1;
UPDATE account SET balance = balance + 1 WHERE id = :id;
END;
