import { useState } from "react";
import { PRIORITIES, PRIORITY_LABEL, type Priority } from "@shared/priority";
import type { Task } from "@shared/task";
import { useUpdateTask } from "../hooks/useTasks";

interface Props {
  task: Task;
  onClose: () => void;
}

export function TaskEditDialog({ task, onClose }: Props) {
  const [title, setTitle] = useState(task.title);
  const [priority, setPriority] = useState<Priority>(task.priority);
  const update = useUpdateTask(task.projectId);

  async function save() {
    await update.mutateAsync({ id: task.id, patch: { title, priority } });
    onClose();
  }

  return (
    <dialog open className="rounded-lg p-4 shadow-xl" aria-labelledby="edit-task-title">
      <h2 id="edit-task-title" className="mb-3 text-lg font-semibold">Edit task</h2>
      <label className="mb-2 block text-sm">
        Title
        <input className="mt-1 w-full rounded border px-2 py-1" value={title} onChange={(e) => setTitle(e.target.value)} />
      </label>
      <label className="mb-4 block text-sm">
        Priority
        <select
          name="priority"
          className="mt-1 w-full rounded border px-2 py-1"
          value={priority}
          onChange={(e) => setPriority(e.target.value as Priority)}
        >
          {PRIORITIES.map((p) => (
            <option key={p} value={p}>{PRIORITY_LABEL[p]}</option>
          ))}
        </select>
      </label>
      {update.isError && <p role="alert" className="mb-2 text-sm text-red-700">Could not save. Try again.</p>}
      <div className="flex justify-end gap-2">
        <button type="button" onClick={onClose}>Cancel</button>
        <button type="button" className="rounded bg-blue-600 px-3 py-1 text-white" disabled={update.isPending} onClick={save}>
          Save
        </button>
      </div>
    </dialog>
  );
}
