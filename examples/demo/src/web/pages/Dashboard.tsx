import { useParams } from "react-router-dom";
import { Cell, Pie, PieChart, Tooltip } from "recharts";
import { useTasks } from "../hooks/useTasks";

// Dashboard widgets. Today: open tasks by status. The priority breakdown widget (US-011)
// goes next to it and should reuse the same PieChart setup.
const STATUS_COLOURS = { todo: "#94a3b8", in_progress: "#3b82f6", done: "#22c55e" } as const;

export function Dashboard() {
  const projectId = Number(useParams().projectId);
  const { data: tasks = [] } = useTasks(projectId);

  const byStatus = (Object.keys(STATUS_COLOURS) as (keyof typeof STATUS_COLOURS)[]).map((status) => ({
    name: status,
    value: tasks.filter((t) => t.status === status).length,
  }));

  return (
    <main className="grid grid-cols-2 gap-6 p-6">
      <section className="rounded-lg border p-4">
        <h2 className="mb-2 font-semibold">Tasks by status</h2>
        <PieChart width={240} height={240}>
          <Pie data={byStatus} dataKey="value" nameKey="name" innerRadius={60} outerRadius={100}>
            {byStatus.map((d) => (
              <Cell key={d.name} fill={STATUS_COLOURS[d.name]} />
            ))}
          </Pie>
          <Tooltip />
        </PieChart>
      </section>
    </main>
  );
}
