-- What a run said (the tail of its output, or an HTTP job's status line and body start), and an
-- index on the finish time so the retention prune finds old rows without a scan. ${long_text} is
-- MEDIUMTEXT on MariaDB/MySQL (a 16384-character VARCHAR in utf8mb4 would exceed its row size),
-- VARCHAR(16384) on H2 and PostgreSQL.

ALTER TABLE task_execution ADD output ${long_text};

CREATE INDEX task_execution_finished ON task_execution (finished_at);
