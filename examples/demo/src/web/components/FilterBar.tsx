import { useSearchParams } from "react-router-dom";

export interface FilterOption<T extends string> {
  value: T | "all";
  label: string;
}

interface Props<T extends string> {
  /** URL search param that holds the selection, e.g. "status". */
  param: string;
  label: string;
  options: FilterOption<T>[];
}

/**
 * Segmented filter control whose state lives in the URL (?status=todo), so filtered
 * views can be bookmarked and shared. Used for status today; reuse it for priority (US-005).
 */
export function FilterBar<T extends string>({ param, label, options }: Props<T>) {
  const [params, setParams] = useSearchParams();
  const current = params.get(param) ?? "all";

  function select(value: string) {
    const next = new URLSearchParams(params);
    if (value === "all") next.delete(param);
    else next.set(param, value);
    setParams(next, { replace: true });
  }

  return (
    <div role="group" aria-label={label} className="inline-flex rounded-md shadow-sm">
      {options.map((o) => (
        <button
          key={o.value}
          type="button"
          aria-pressed={current === o.value}
          onClick={() => select(o.value)}
          className={`border px-3 py-1 text-sm first:rounded-l-md last:rounded-r-md ${
            current === o.value ? "bg-blue-600 text-white" : "bg-white text-gray-700"
          }`}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}
