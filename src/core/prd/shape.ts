/**
 * Where a prd.json keeps its stories. Ralph reads a root object with a "userStories" array; files
 * written for other tools use another key ("stories", "tasks", "items"), a {"prd": {...}} wrapper,
 * phases that each hold stories, or a top-level array. All of them are read (and said so).
 */
import type { JsonPath, PrdShape } from './model';

/** Keys other tools use for the story list, in the order they are tried. */
export const OTHER_LIST_KEYS = ['stories', 'tasks', 'items'] as const;
const WRAPPER_KEYS = ['prd'] as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function own(o: Record<string, unknown>, k: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined;
}

function entries(n: number): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? 'entry' : 'entries'}`;
}

/** The list key of an object: "userStories", else the first other key holding an array. */
function listKeyOf(o: Record<string, unknown>): string | undefined {
  if (Array.isArray(own(o, 'userStories'))) {
    return 'userStories';
  }
  return OTHER_LIST_KEYS.find((k) => Array.isArray(own(o, k)));
}

/** The shape of a parsed prd.json value. A root "userStories" that is not an array is `standard` with no list (a schema error). */
export function shapeOf(data: unknown): PrdShape {
  if (Array.isArray(data)) {
    return { kind: 'array', lists: [[]], found: `a top-level array (${entries(data.length)})` };
  }
  if (!isRecord(data)) {
    return { kind: 'none', lists: [], found: '' };
  }
  if (own(data, 'userStories') !== undefined) {
    return { kind: 'standard', lists: Array.isArray(data.userStories) ? [['userStories']] : [], found: '"userStories"' };
  }
  const key = listKeyOf(data);
  if (key) {
    return { kind: 'other-key', lists: [[key]], found: `"${key}" (${entries((data[key] as unknown[]).length)})` };
  }
  for (const w of WRAPPER_KEYS) {
    const inner = own(data, w);
    if (isRecord(inner)) {
      const k = listKeyOf(inner);
      if (k) {
        return { kind: 'wrapper', lists: [[w, k]], found: `"${w}.${k}" (${entries((inner[k] as unknown[]).length)})` };
      }
    }
  }
  const phases = own(data, 'phases');
  if (Array.isArray(phases)) {
    const lists: JsonPath[] = [];
    let total = 0;
    phases.forEach((p, i) => {
      if (isRecord(p)) {
        const k = listKeyOf(p);
        if (k) {
          lists.push(['phases', i, k]);
          total += (p[k] as unknown[]).length;
        }
      }
    });
    if (lists.length > 0) {
      return { kind: 'phases', lists, found: `stories in ${lists.length} of ${phases.length} "phases" (${entries(total)})` };
    }
  }
  return { kind: 'none', lists: [], found: '' };
}

/** The value at a path of plain data (own properties only). */
export function valueAt(data: unknown, path: JsonPath): unknown {
  let v = data;
  for (const p of path) {
    if (typeof p === 'number') {
      v = Array.isArray(v) ? v[p] : undefined;
    } else {
      v = isRecord(v) ? own(v, p) : undefined;
    }
  }
  return v;
}
