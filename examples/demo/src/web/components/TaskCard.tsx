import type { Task } from "@shared/task";
import { PriorityBadge } from "./PriorityBadge";

interface Props {
  task: Task;
  onEdit: (task: Task) => void;
}

export function TaskCard({ task, onEdit }: Props) {
  return (
    <article
      className="flex flex-col gap-2 rounded-lg border border-gray-200 bg-white p-3 shadow-sm"
      onDoubleClick={() => onEdit(task)}
    >
      <header className="flex items-start justify-between gap-2">
        <h3 className="text-sm font-semibold text-gray-900">{task.title}</h3>
        {/* Always visible, not only on hover (US-003). */}
        <PriorityBadge priority={task.priority} />
      </header>
      {task.description && <p className="line-clamp-2 text-sm text-gray-600">{task.description}</p>}
      <footer className="flex items-center justify-between text-xs text-gray-500">
        <span>{task.dueDate ? `Due ${task.dueDate}` : "No due date"}</span>
        <button type="button" className="text-blue-600 hover:underline" onClick={() => onEdit(task)}>
          Edit
        </button>
      </footer>
    </article>
  );
}
