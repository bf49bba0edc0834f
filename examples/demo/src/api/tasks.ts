import { Router } from "express";
import { pool } from "./db";
import { COLUMN, taskPatchSchema, type TaskPatchInput } from "./priority";
import { recordChanges } from "./audit";
import { notifyAssigned } from "./notifications";

export const tasksRouter = Router();

const SELECT_TASK = `
  SELECT id, project_id AS "projectId", title, description, status, priority,
         assignee_id AS "assigneeId", to_char(due_date, 'YYYY-MM-DD') AS "dueDate",
         updated_at AS "updatedAt"
  FROM tasks`;

// GET /api/tasks?projectId=1&status=todo
tasksRouter.get("/", async (req, res, next) => {
  try {
    const { rows } = await pool.query(
      `${SELECT_TASK} WHERE project_id = $1 AND ($2::text IS NULL OR status = $2)
       ORDER BY due_date NULLS LAST, id`,
      [Number(req.query.projectId), req.query.status ?? null],
    );
    res.json(rows);
  } catch (err) {
    next(err);
  }
});

// PATCH /api/tasks/:id  body: TaskPatch (see src/shared/task.ts)
tasksRouter.patch("/:id", async (req, res, next) => {
  const parsed = taskPatchSchema.safeParse(req.body);
  if (!parsed.success) {
    res.status(400).json({ error: "invalid_task_patch", issues: parsed.error.issues });
    return;
  }
  const patch: TaskPatchInput = parsed.data;
  const keys = Object.keys(patch) as (keyof TaskPatchInput)[];
  if (keys.length === 0) {
    res.status(400).json({ error: "empty_patch" });
    return;
  }
  try {
    const before = await pool.query(`${SELECT_TASK} WHERE id = $1`, [req.params.id]);
    if (before.rowCount === 0) {
      res.status(404).json({ error: "not_found" });
      return;
    }
    const sets = keys.map((k, i) => `${COLUMN[k]} = $${i + 2}`).join(", ");
    const { rows } = await pool.query(
      `UPDATE tasks SET ${sets}, updated_at = now() WHERE id = $1 RETURNING id`,
      [req.params.id, ...keys.map((k) => patch[k])],
    );
    const after = await pool.query(`${SELECT_TASK} WHERE id = $1`, [rows[0].id]);
    await recordChanges(req.userId!, before.rows[0], after.rows[0]);
    await notifyAssigned(req.userId!, before.rows[0], after.rows[0]);
    res.json(after.rows[0]);
  } catch (err) {
    next(err);
  }
});
