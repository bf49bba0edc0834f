import type { Priority } from "./priority";

export type TaskStatus = "todo" | "in_progress" | "done";

/** A task as returned by GET /api/tasks (camelCase; the API maps snake_case rows). */
export interface Task {
  id: number;
  projectId: number;
  title: string;
  description: string;
  status: TaskStatus;
  priority: Priority;
  assigneeId: number | null;
  dueDate: string | null; // ISO date, e.g. "2026-11-30"
  updatedAt: string;
}

export type TaskPatch = Partial<Pick<Task, "title" | "description" | "status" | "priority" | "assigneeId" | "dueDate">>;
