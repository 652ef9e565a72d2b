-- conch's guard on the fence table (conch-jdbc): refuses DELETE, TRUNCATE, and an UPDATE that lowers
-- a token or changes an office (SQLState NC003), as a deleted or lowered row would let an old token pass again.
-- Retire an office: SET LOCAL conch.retire_office = 'billing'; DELETE FROM conch_fence WHERE office = 'billing'; in one transaction.
-- Statements are separated by a line holding only ;; (psql runs the file as it is). Run it again: it changes nothing.
-- FenceSchema.forTable(name).guard(FenceDialect.POSTGRESQL) gives the same for another table name.
CREATE OR REPLACE FUNCTION conch_fence_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    RAISE EXCEPTION USING ERRCODE = 'NC003',
      MESSAGE = format('the conch fence table %s may not be truncated (an old token would pass again):'
        || ' retire each office with SET LOCAL conch.retire_office = ''<office>'' and a DELETE of its row', TG_TABLE_NAME);
  END IF;
  IF TG_OP = 'DELETE' THEN
    IF OLD.office = current_setting('conch.retire_office', true) THEN
      RETURN OLD;
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'NC003',
      MESSAGE = format('the conch fence row of office ''%s'' may not be deleted (an old token would pass again):'
        || ' retire the office with SET LOCAL conch.retire_office = ''%s'' in the deleting transaction', OLD.office, OLD.office);
  END IF;
  IF NEW.office IS DISTINCT FROM OLD.office THEN
    RAISE EXCEPTION USING ERRCODE = 'NC003',
      MESSAGE = format('the conch fence row of office ''%s'' may not change its office to ''%s''', OLD.office, NEW.office);
  END IF;
  IF NEW.token IS NULL OR NEW.token < OLD.token THEN
    RAISE EXCEPTION USING ERRCODE = 'NC003',
      MESSAGE = format('the conch fence row of office ''%s'' may not be lowered from token %s to %s (an old token would pass again)',
        OLD.office, OLD.token, NEW.token);
  END IF;
  RETURN NEW;
END
$$
;;
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'conch_guard' AND tgrelid = 'conch_fence'::regclass) THEN
    CREATE TRIGGER conch_guard BEFORE UPDATE OR DELETE ON conch_fence
      FOR EACH ROW EXECUTE FUNCTION conch_fence_guard();
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'conch_guard_truncate' AND tgrelid = 'conch_fence'::regclass) THEN
    CREATE TRIGGER conch_guard_truncate BEFORE TRUNCATE ON conch_fence
      FOR EACH STATEMENT EXECUTE FUNCTION conch_fence_guard();
  END IF;
END
$$
;;
