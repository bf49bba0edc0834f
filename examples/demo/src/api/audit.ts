import { pool, type Queryable } from "./db";
import type { Task } from "@shared/task";

// Fields whose changes are written to audit_log. Priority is added by US-009.
const AUDITED: (keyof Task)[] = ["status", "assigneeId", "dueDate"];

export async function recordChanges(actorId: number, before: Task, after: Task, db: Queryable = pool) {
  for (const field of AUDITED) {
    if (before[field] === after[field]) continue;
    await db.query(
      `INSERT INTO audit_log (task_id, actor_id, field, old_value, new_value)
       VALUES ($1, $2, $3, $4, $5)`,
      [after.id, actorId, field, stringify(before[field]), stringify(after[field])],
    );
  }
}

export async function historyOf(taskId: number, db: Queryable = pool) {
  const { rows } = await db.query(
    `SELECT field, old_value AS "oldValue", new_value AS "newValue", actor_id AS "actorId",
            created_at AS "createdAt"
     FROM audit_log WHERE task_id = $1 ORDER BY created_at DESC`,
    [taskId],
  );
  return rows;
}

function stringify(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}
