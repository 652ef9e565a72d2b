-- pgbench script: the benchmark transaction alone (one UPDATE of a random row of 1,000, COMMIT).
\set id random(1, 1000)
BEGIN;
UPDATE account SET balance = balance + 1 WHERE id = :id;
END;
