-- pgbench script: the fence's steady state in the transaction, office 'bench' at token 42.
-- The lines between "fence:begin" and "fence:end" are what JdbcFence.check sends in the steady
-- state (FenceStatements.of, case POSTGRESQL, field holds). dev.conch.jdbc.bench.PgbenchFence
-- records them from JdbcFence.check at run time and puts them here, so a change of the fence's
-- statements reaches this script by itself; the lines below are only for running it by hand.
\set id random(1, 1000)
BEGIN;
-- fence:begin
SELECT token FROM conch_fence WHERE office = 'bench' AND token = 42 FOR SHARE;
-- fence:end
UPDATE account SET balance = balance + 1 WHERE id = :id;
END;
