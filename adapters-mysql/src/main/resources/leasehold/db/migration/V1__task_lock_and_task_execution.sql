-- Leasehold's tables. The placeholders are filled per database by the SQL store:
-- datetime = DATETIME(3) on MariaDB/MySQL (no 2038 limit, no session time zone conversion),
-- TIMESTAMP(3) (without time zone) on H2 and PostgreSQL. Every time stored here is UTC.

CREATE TABLE task_lock (
  lock_key    VARCHAR(100) NOT NULL,
  holder      VARCHAR(200),
  token       VARCHAR(64),
  fence       BIGINT       NOT NULL,
  last_fire   ${datetime},
  lease_until ${datetime}  NOT NULL,
  PRIMARY KEY (lock_key)
)${table_options};

CREATE TABLE task_execution (
  id           ${identity},
  job          VARCHAR(100) NOT NULL,
  fire_time    ${datetime}  NOT NULL,
  node         VARCHAR(200) NOT NULL,
  fence        BIGINT       NOT NULL,
  trigger_kind VARCHAR(16)  NOT NULL,
  started_at   ${datetime}  NOT NULL,
  finished_at  ${datetime}  NOT NULL,
  outcome      VARCHAR(16)  NOT NULL,
  exit_code    INTEGER,
  detail       VARCHAR(500)
)${table_options};

CREATE INDEX task_execution_job_started ON task_execution (job, started_at);
