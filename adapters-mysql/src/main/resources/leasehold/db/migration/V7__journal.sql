-- The journal (see docs/stores/sql.md): small append-only streams (the audit trail, check pings,
-- chain hand-offs, backfill requests) and write-once keys (a namespace's digest key). An entry's
-- id is 36 hex digits that sort by its time first (the writer's sequence, then random digits
-- after it), so "newest first" is ORDER BY id DESC and a prune by time is a range of ids; entry_at
-- holds the same time for whoever reads the table by hand. ${long_text} holds a body of up to
-- 8192 characters: MEDIUMTEXT on MariaDB/MySQL (utf8mb4), VARCHAR(16384) on H2 and PostgreSQL.

CREATE TABLE task_journal (
  id       VARCHAR(36)  NOT NULL,
  stream   VARCHAR(100) NOT NULL,
  entry_at ${datetime}  NOT NULL,
  body     ${long_text} NOT NULL,
  PRIMARY KEY (id)
)${table_options};

CREATE INDEX task_journal_stream_id ON task_journal (stream, id);

CREATE TABLE task_journal_key (
  journal_key VARCHAR(100) NOT NULL,
  key_value   ${long_text} NOT NULL,
  PRIMARY KEY (journal_key)
)${table_options};
