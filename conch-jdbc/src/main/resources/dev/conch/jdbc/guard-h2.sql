-- conch's guard on the fence table (conch-jdbc): refuses DELETE and an UPDATE that lowers a token or changes
-- an office (SQLState NC003), as a deleted or lowered row would let an old token pass again. TRUNCATE fires no trigger.
-- Retire an office: SET @conch_retire_office = 'billing'; DELETE FROM conch_fence WHERE office = 'billing'; SET @conch_retire_office = NULL;
-- The trigger is the class dev.conch.jdbc.H2FenceGuard of conch-jdbc. Run it again: it changes nothing.
-- FenceSchema.forTable(name).guard(FenceDialect.H2) gives the same for another table name.
CREATE TRIGGER IF NOT EXISTS conch_fence_guard BEFORE UPDATE, DELETE ON conch_fence FOR EACH ROW
  CALL 'dev.conch.jdbc.H2FenceGuard'
;;
