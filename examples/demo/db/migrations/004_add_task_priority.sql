-- US-001: every task carries a priority (high | medium | low, default medium).
-- Adding the column with a DEFAULT backfills existing rows with 'medium' in one statement.
ALTER TABLE tasks
  ADD COLUMN IF NOT EXISTS priority TEXT NOT NULL DEFAULT 'medium';

-- A CHECK constraint rather than a Postgres ENUM: enums cannot drop values and
-- ALTER TYPE ... ADD VALUE cannot run inside the migration transaction.
ALTER TABLE tasks DROP CONSTRAINT IF EXISTS tasks_priority_check;
ALTER TABLE tasks
  ADD CONSTRAINT tasks_priority_check CHECK (priority IN ('high', 'medium', 'low'));

-- Supports the priority filter and sort (US-005, US-006).
CREATE INDEX IF NOT EXISTS tasks_project_priority_idx ON tasks (project_id, priority);
