import { useState } from "react";
import { useParams, useSearchParams } from "react-router-dom";
import type { Task, TaskStatus } from "@shared/task";
import { useTasks } from "../hooks/useTasks";
import { FilterBar } from "../components/FilterBar";
import { TaskCard } from "../components/TaskCard";
import { TaskEditDialog } from "../components/TaskEditDialog";

const STATUS_OPTIONS = [
  { value: "all" as const, label: "All" },
  { value: "todo" as const, label: "To do" },
  { value: "in_progress" as const, label: "In progress" },
  { value: "done" as const, label: "Done" },
];

export function TaskList() {
  const projectId = Number(useParams().projectId);
  const [params] = useSearchParams();
  const status = (params.get("status") ?? undefined) as TaskStatus | undefined;
  const { data: tasks = [], isLoading, error } = useTasks(projectId, status);
  const [editing, setEditing] = useState<Task | null>(null);

  return (
    <main className="mx-auto max-w-3xl p-6">
      <div className="mb-4 flex items-center justify-between">
        <h1 className="text-xl font-semibold">Tasks</h1>
        <FilterBar param="status" label="Filter by status" options={STATUS_OPTIONS} />
      </div>
      {isLoading && <p>Loading…</p>}
      {error && <p role="alert">Could not load tasks.</p>}
      <ul className="grid gap-3">
        {tasks.map((task) => (
          <li key={task.id}>
            <TaskCard task={task} onEdit={setEditing} />
          </li>
        ))}
      </ul>
      {editing && <TaskEditDialog task={editing} onClose={() => setEditing(null)} />}
    </main>
  );
}
