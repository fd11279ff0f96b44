-- One row per running daemon (see docs/stores/sql.md): who it is, what it runs, which leases it
-- holds. Live until expires_at, kept as stale until kept_until; rows past kept_until are deleted by
-- the next read of the node list. leases is the node's held lease names, one per line.

CREATE TABLE task_node (
  node_id VARCHAR(200) NOT NULL,
  version VARCHAR(100) NOT NULL,
  started_at ${datetime} NOT NULL,
  last_seen ${datetime} NOT NULL,
  expires_at ${datetime} NOT NULL,
  kept_until ${datetime} NOT NULL,
  job_digest VARCHAR(100) NOT NULL,
  leases ${long_text},
  PRIMARY KEY (node_id)
);
