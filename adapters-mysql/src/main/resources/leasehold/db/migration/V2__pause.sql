-- A job's cluster-wide pause, kept on its lease row so that the claim statement decides it in the
-- same atomic step (see docs/stores/sql.md). paused_fire is the latest firing a claim recorded as
-- paused; pause_claim the token of that claim (how its claimant recognises its own answer).

ALTER TABLE task_lock ADD paused_at ${datetime};
ALTER TABLE task_lock ADD paused_by VARCHAR(200);
ALTER TABLE task_lock ADD paused_reason VARCHAR(500);
ALTER TABLE task_lock ADD pause_stop INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE task_lock ADD paused_fire ${datetime};
ALTER TABLE task_lock ADD pause_claim VARCHAR(64);
