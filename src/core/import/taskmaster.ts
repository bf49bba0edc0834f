/**
 * Taskmaster `.taskmaster/tasks/tasks.json`: tagged (`{"master": {"tasks": [...]}, "feature-x": …}`)
 * or legacy (`{"tasks": [...]}`). The tag: `--tag`, else the current tag of `.taskmaster/state.json`
 * (the caller reads it), else `master`.
 * - id: TM-<id>; title; description: description, then details; passes: status done (or completed);
 * - priority: critical 0, high 1, medium 2 (also when absent), low 3;
 * - acceptance criteria: testStrategy, then an `acceptanceCriteria` list, then the sub-tasks (the
 *   rule for sub-tasks: they are acceptance criteria of their task, their number, title,
 *   description, details, status, dependencies and test strategy kept in the criterion's text);
 * - a text field may be written as a list of lines (real files write `details` so): the lines
 *   are kept, one a line; a field that is not text at all is reported, never dropped silently;
 * - blockedBy: dependencies (TM-<id>); a status other than pending/done/in-progress goes to notes.
 */
import { parse, type ParseError, parseTree, printParseErrorCode, type Node } from 'jsonc-parser';
import { DEFAULT_PRIORITY, isRecord, type Json, lineFinder, priorityOfWord, storyId, str } from './text';
import { ImportError, type ImportedStory, type ImportResult, type ImportWarning } from './types';




/** JSON.parse, and on failure the first syntax error with its line and column. */
export function parseJsonOrExplain(text: string, file: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const errors: ParseError[] = [];
    parse(text, errors, { allowTrailingComma: false, disallowComments: true });
    const e = errors[0];
    const line = e ? lineFinder(text)(e.offset) : undefined;
    throw new ImportError(`${file} is not valid JSON${e ? ` (${printParseErrorCode(e.error)} at line ${line})` : ''}.`);
  }
}

/** The task list of a parsed tasks.json and its path (for lines): legacy, or the tag's. */
function taskList(data: unknown, tag: string | undefined, defaultTag: string | undefined, file: string): { tasks: unknown[]; path: string[] } {
  if (isRecord(data) && Array.isArray(data.tasks)) {
    return { tasks: data.tasks, path: ['tasks'] };
  }
  const tags = isRecord(data) ? Object.keys(data).filter((k) => isRecord(data[k]) && Array.isArray((data[k] as Json).tasks)) : [];
  if (tags.length === 0) {
    throw new ImportError(`${file} has no "tasks" list: a Taskmaster file is {"master": {"tasks": [...]}} (tagged) or {"tasks": [...]} (legacy).`);
  }
  const wanted = tag ?? (defaultTag !== undefined && tags.includes(defaultTag) ? defaultTag : 'master');
  if (!tags.includes(wanted)) {
    throw new ImportError(`${file} has no tag "${wanted}"; its tags: ${tags.join(', ')}. Choose one with --tag.`);
  }
  return { tasks: (data as Record<string, Json>)[wanted].tasks as unknown[], path: [wanted, 'tasks'] };
}

/**
 * A text field as text: a string or number, or a list of them (one a line). Absent: ''. Anything
 * else (an object, a list of objects) is undefined, for the caller to report.
 */
function textOf(v: unknown): string | undefined {
  if (v === undefined || v === null) {
    return '';
  }
  if (Array.isArray(v)) {
    return v.every((x) => typeof x === 'string' || typeof x === 'number') ? v.map(str).filter((x) => x !== '').join('\n') : undefined;
  }
  return typeof v === 'string' || typeof v === 'number' ? str(v) : undefined;
}

/** Criteria written as a list (one criterion an item) or as one text. Not text: undefined. */
function criteriaOf(v: unknown): string[] | undefined {
  const text = textOf(v);
  return text === undefined ? undefined : Array.isArray(v) ? v.map(str).filter((x) => x !== '') : text !== '' ? [text] : [];
}

function subtaskCriterion(parent: string, s: Json): string {
  const deps = Array.isArray(s.dependencies) ? s.dependencies.map(str).filter((d) => d !== '') : [];
  const head = `${parent}.${str(s.id)} ${str(s.title)}`.trim();
  const details = textOf(s.details) ?? '';
  const parts = [head, str(s.description) !== '' ? `: ${str(s.description)}` : '', details !== '' ? ` — ${details}` : '', str(s.testStrategy) !== '' ? ` (test: ${str(s.testStrategy)})` : '', deps.length > 0 ? ` (after ${deps.join(', ')})` : '', str(s.status) !== '' ? ` [${str(s.status)}]` : ''];
  return parts.join('');
}

const KNOWN_STATUS = new Set(['pending', 'done', 'completed', 'in-progress', '']);

export function importTaskmaster(text: string, file: string, options: { tag?: string; defaultTag?: string } = {}): ImportResult {
  const data = parseJsonOrExplain(text, file);
  const { tasks, path } = taskList(data, options.tag, options.defaultTag, file);
  const warnings: ImportWarning[] = [];
  // Lines only for warnings: the located tree is built on the first one.
  let nodes: Node[] | undefined;
  let lineAt: ((offset: number) => number) | undefined;
  const lineOf = (index: number): number | undefined => {
    if (!nodes) {
      let n = parseTree(text);
      for (const key of path) {
        n = n?.children?.find((p) => p.children?.[0]?.value === key)?.children?.[1];
      }
      nodes = n?.children ?? [];
    }
    const node = nodes[index];
    lineAt ??= lineFinder(text);
    return node ? lineAt(node.offset) : undefined;
  };
  const stories: ImportedStory[] = [];
  tasks.forEach((t, index) => {
    if (!isRecord(t) || str(t.id) === '' || str(t.title) === '') {
      warnings.push({ line: lineOf(index), message: `task ${index + 1} has no id or no title: not imported` });
      return;
    }
    const original = str(t.id);
    const status = str(t.status).toLowerCase();
    let priority = priorityOfWord(t.priority);
    if (priority === undefined) {
      if (t.priority !== undefined) {
        warnings.push({ line: lineOf(index), message: `task ${original}: priority ${JSON.stringify(t.priority)} is not critical/high/medium/low: imported as medium` });
      }
      priority = DEFAULT_PRIORITY;
    }
    const deps = Array.isArray(t.dependencies) ? t.dependencies.map(str).filter((d) => d !== '') : [];
    const subtasks = Array.isArray(t.subtasks) ? t.subtasks.filter(isRecord) : [];
    const field = <T>(name: string, value: T | undefined, empty: T): T => {
      if (value === undefined) {
        warnings.push({ line: lineOf(index), message: `task ${original}: "${name}" is not text or a list of lines: not imported` });
      }
      return value ?? empty;
    };
    const description = [field('description', textOf(t.description), ''), field('details', textOf(t.details), '')];
    const criteria = [...field('testStrategy', criteriaOf(t.testStrategy), []), ...field('acceptanceCriteria', criteriaOf(t.acceptanceCriteria), []), ...subtasks.map((s) => subtaskCriterion(original, s))];
    stories.push({
      id: storyId('taskmaster', original),
      title: str(t.title),
      description: description.filter((s) => s !== '').join('\n\n'),
      acceptanceCriteria: criteria,
      priority,
      passes: status === 'done' || status === 'completed',
      ...(deps.length > 0 ? { blockedBy: deps.map((d) => storyId('taskmaster', d)) } : {}),
      ...(!KNOWN_STATUS.has(status) ? { notes: `Taskmaster status: ${status}` } : {}),
      source: { format: 'taskmaster', file, id: original },
    });
  });
  return { format: 'taskmaster', stories, warnings };
}
