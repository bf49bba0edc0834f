import { pool, type Queryable } from "./db";
import type { Task } from "@shared/task";

export type NotificationKind = "assigned"; // "priority_changed" arrives with US-008

/** In-app notification; rows are read by the bell menu via GET /api/notifications. */
export async function notify(
  userId: number,
  kind: NotificationKind,
  taskId: number,
  payload: Record<string, unknown>,
  db: Queryable = pool,
) {
  await db.query(
    `INSERT INTO notifications (user_id, kind, task_id, payload) VALUES ($1, $2, $3, $4)`,
    [userId, kind, taskId, JSON.stringify(payload)],
  );
}

/** Tell the new assignee, unless they assigned the task to themselves. */
export async function notifyAssigned(actorId: number, before: Task, after: Task) {
  if (after.assigneeId === null || after.assigneeId === before.assigneeId) return;
  if (after.assigneeId === actorId) return;
  await notify(after.assigneeId, "assigned", after.id, { title: after.title, by: actorId });
}
