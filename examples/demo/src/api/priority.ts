import { z } from "zod";
import { PRIORITIES } from "@shared/priority";

// Request validation for priority. The list of values comes from src/shared/priority.ts;
// never repeat the literals here.
export const prioritySchema = z.enum(PRIORITIES);

export const taskPatchSchema = z
  .object({
    title: z.string().trim().min(1).max(200),
    description: z.string().max(10_000),
    status: z.enum(["todo", "in_progress", "done"]),
    priority: prioritySchema,
    assigneeId: z.number().int().positive().nullable(),
    dueDate: z.string().date().nullable(),
  })
  .partial()
  .strict(); // unknown keys are a 400, not silently dropped

export type TaskPatchInput = z.infer<typeof taskPatchSchema>;

/** Maps camelCase patch keys to snake_case columns. Add new columns here. */
export const COLUMN: Record<keyof TaskPatchInput, string> = {
  title: "title",
  description: "description",
  status: "status",
  priority: "priority",
  assigneeId: "assignee_id",
  dueDate: "due_date",
};
