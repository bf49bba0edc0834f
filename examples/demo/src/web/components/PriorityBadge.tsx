import { PRIORITY_LABEL, type Priority } from "@shared/priority";

// Full class strings only: Tailwind's scanner drops classes built with template strings
// such as `bg-${color}-100`.
const STYLE: Record<Priority, string> = {
  high: "bg-red-100 text-red-800 ring-red-600/20",
  medium: "bg-yellow-100 text-yellow-800 ring-yellow-600/20",
  low: "bg-gray-100 text-gray-600 ring-gray-500/10",
};

export function PriorityBadge({ priority }: { priority: Priority }) {
  return (
    <span
      data-testid="priority-badge"
      aria-label={`Priority: ${PRIORITY_LABEL[priority]}`}
      className={`inline-flex items-center rounded-md px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${STYLE[priority]}`}
    >
      {PRIORITY_LABEL[priority]}
    </span>
  );
}
