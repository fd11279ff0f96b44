-- The highest fence and watermark of every task_lock row that was deleted, kept by a trigger on the
-- delete itself (a row deleted by hand, the way ShedLock's users unlock a job): a claim that finds
-- its name's row gone restores fence and watermark from here, so a firing already run is not run
-- again (see docs/stores/sql.md). forget deletes a name's high-water row in the same transaction as
-- its lease row: a forgotten name starts afresh (its fence above the forgotten-fences floor).
-- The placeholder below is the trigger, per database: a PL/pgSQL function on PostgreSQL, a Java
-- class of the store on H2; empty on MariaDB/MySQL, where the store creates the trigger when it
-- opens (creating one may need privileges a service account lacks).

CREATE TABLE task_lock_high_water (
  lock_key  VARCHAR(100) NOT NULL,
  fence     BIGINT       NOT NULL,
  last_fire ${datetime},
  PRIMARY KEY (lock_key)
)${table_options};

${high_water_trigger}
