-- Audit trail of task changes. One row per changed field.
CREATE TABLE IF NOT EXISTS audit_log (
  id          BIGSERIAL PRIMARY KEY,
  task_id     INTEGER NOT NULL,
  actor_id    INTEGER NOT NULL REFERENCES users(id),
  field       TEXT NOT NULL,
  old_value   TEXT,
  new_value   TEXT,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS audit_log_task_id_idx ON audit_log (task_id, created_at DESC);
