import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Task, TaskPatch, TaskStatus } from "@shared/task";

export const tasksKey = (projectId: number) => ["tasks", projectId] as const;

export function useTasks(projectId: number, status?: TaskStatus) {
  return useQuery({
    queryKey: [...tasksKey(projectId), { status }],
    queryFn: async (): Promise<Task[]> => {
      const qs = new URLSearchParams({ projectId: String(projectId) });
      if (status) qs.set("status", status);
      const res = await fetch(`/api/tasks?${qs}`);
      if (!res.ok) throw new Error(`GET /api/tasks failed: ${res.status}`);
      return res.json();
    },
  });
}

export function useUpdateTask(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, patch }: { id: number; patch: TaskPatch }): Promise<Task> => {
      const res = await fetch(`/api/tasks/${id}`, {
        method: "PATCH",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(patch),
      });
      if (!res.ok) throw new Error(`PATCH /api/tasks/${id} failed: ${res.status}`);
      return res.json();
    },
    // Invalidate the prefix key so every filtered variant of the list refetches;
    // without this the badge keeps showing the old priority (see progress.txt, US-004).
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tasksKey(projectId) }),
  });
}
