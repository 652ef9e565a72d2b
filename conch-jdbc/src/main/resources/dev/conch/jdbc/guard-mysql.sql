-- conch's guard on the fence table (conch-jdbc): refuses DELETE and an UPDATE that lowers a token or changes
-- an office (SQLState NC003), as a deleted or lowered row would let an old token pass again. TRUNCATE fires no trigger.
-- Retire an office: SET @conch_retire_office = 'billing'; DELETE FROM conch_fence WHERE office = 'billing'; SET @conch_retire_office = NULL;
-- Statements are separated by a line holding only ;; (MySQL 8.0.29 or later; the mysql client: --delimiter=';;'). Run it again: it changes nothing.
-- FenceSchema.forTable(name).guard(FenceDialect.MYSQL) gives the same for another table name.
-- MySQL keeps a SIGNAL's MESSAGE_TEXT to 128 characters (MariaDB 10.3 and later to 512): the messages are cut there.
CREATE TRIGGER IF NOT EXISTS conch_fence_guard_upd BEFORE UPDATE ON conch_fence FOR EACH ROW
BEGIN
  DECLARE message VARCHAR(512) CHARACTER SET utf8mb4;
  IF NOT (NEW.office <=> OLD.office) THEN
    SET message = CONCAT('the conch fence row of office ''', OLD.office, ''' may not change its office');
    SET message = LEFT(message, 128);
    SIGNAL SQLSTATE 'NC003' SET MESSAGE_TEXT = message;
  END IF;
  IF NEW.token IS NULL OR NEW.token < OLD.token THEN
    SET message = CONCAT('the conch fence row of office ''', OLD.office, ''' may not be lowered from token ',
      OLD.token, ' to ', IFNULL(NEW.token, 'NULL'), ' (an old token would pass again)');
    SET message = LEFT(message, 128);
    SIGNAL SQLSTATE 'NC003' SET MESSAGE_TEXT = message;
  END IF;
END
;;
CREATE TRIGGER IF NOT EXISTS conch_fence_guard_del BEFORE DELETE ON conch_fence FOR EACH ROW
BEGIN
  DECLARE message VARCHAR(512) CHARACTER SET utf8mb4;
  IF NOT (OLD.office <=> CONVERT(@conch_retire_office USING utf8mb4) COLLATE utf8mb4_bin) THEN
    SET message = CONCAT('the conch fence row of office ''', OLD.office,
      ''' may not be deleted (an old token would pass again): retire the office with SET @conch_retire_office = ''',
      OLD.office, ''' before the DELETE');
    SET message = LEFT(message, 128);
    SIGNAL SQLSTATE 'NC003' SET MESSAGE_TEXT = message;
  END IF;
END
;;
