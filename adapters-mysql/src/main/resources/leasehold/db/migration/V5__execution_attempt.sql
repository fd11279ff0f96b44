-- Which run of its firing a history row is: 1 for the first, 2 for the first retry after a failed
-- or timed-out run, and so on. Rows written before retries were kept are first attempts.

ALTER TABLE task_execution ADD attempt INTEGER DEFAULT 1 NOT NULL;
