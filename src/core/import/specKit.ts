/**
 * spec-kit `tasks.md`: only task lines become stories (`- [ ] T012 [P] [US1] Text with path`).
 * - id: the task id (T012); passes: the box is checked; priority: the task's place in the file;
 * - title: the text (cut); description: the phase heading, the user story label, whether it may
 *   run in parallel; acceptance criteria: the task text itself (continuation lines joined);
 * - blockedBy: the ids the text names after "depends on" (`T009-T016` ranges expanded); a task
 *   that names none waits on every task of the phase before its own (spec-kit's phase order), and a
 *   task without [P] also on the task before it in its phase (tasks without [P] run in order).
 * A checklist line without a task id is not a task: it is reported, not imported.
 */
import { checklistItem, linesOf, titleOf } from './text';
import type { ImportedStory, ImportResult, ImportWarning } from './types';

const TASK = /^\s*[-*]\s+\[([ xX])\]\s+(T\d+)\b:?/;
const PHASE = /^#{1,4}\s/;
/** A range is expanded only up to this many ids (a typo such as T1-T99999 is not a million ids). */
const MAX_RANGE = 1000;

interface Task {
  readonly id: string;
  readonly line: number;
  readonly done: boolean;
  readonly parallel: boolean;
  readonly labels: string[];
  readonly phase: number;
  readonly phaseTitle: string;
  text: string;
}

/** Leading `[P]`, `[US1]`, `[Setup]` tags of a task text. */
function splitTags(rest: string): { tags: string[]; text: string } {
  const tags: string[] = [];
  let text = rest.trim();
  for (let m = /^\[([^\]\n]{1,40})\]\s*/.exec(text); m; m = /^\[([^\]\n]{1,40})\]\s*/.exec(text)) {
    tags.push(m[1].trim());
    text = text.slice(m[0].length);
  }
  return { tags, text: text.trim() };
}

/** Ids named after "depends on" (T005, T009-T016), in order, each once. */
export function dependsOnIds(text: string): string[] {
  const at = text.toLowerCase().indexOf('depends on');
  if (at < 0) {
    return [];
  }
  const tail = text.slice(at + 'depends on'.length);
  const end = tail.search(/[)\n;]/);
  const part = end < 0 ? tail : tail.slice(0, end);
  const out = new Set<string>();
  for (const m of part.matchAll(/T(\d+)(?:\s*[-–]\s*T(\d+))?/g)) {
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from || to - from > MAX_RANGE) {
      out.add(`T${m[1]}`);
      continue;
    }
    for (let n = from; n <= to; n++) {
      out.add(`T${String(n).padStart(m[1].length, '0')}`);
    }
  }
  return [...out];
}

export function importSpecKit(text: string, file: string): ImportResult {
  const warnings: ImportWarning[] = [];
  const tasks: Task[] = [];
  let phase = 0;
  let phaseTitle = '';
  let current: Task | undefined;
  linesOf(text).forEach((line, i) => {
    if (PHASE.test(line)) {
      current = undefined;
      const heading = line.replace(/^#+/, '').trim();
      if (/^phase\b/i.test(heading)) {
        phase++;
        phaseTitle = heading;
      }
      return;
    }
    const m = TASK.exec(line);
    if (m) {
      const { tags, text: body } = splitTags(line.slice(m[0].length));
      current = { id: m[2], line: i + 1, done: m[1] !== ' ', parallel: tags.includes('P'), labels: tags.filter((t) => t !== 'P'), phase, phaseTitle, text: body };
      tasks.push(current);
      return;
    }
    const item = checklistItem(line);
    if (item) {
      current = undefined;
      if (item.text !== '') {
        warnings.push({ line: i + 1, message: `a checklist item without a task id (T001 …) is not a spec-kit task: not imported ("${titleOf(item.text, 60)}")` });
      }
      return;
    }
    if (current && /^\s+\S/.test(line)) {
      // a task's text wrapped onto the next, indented line
      current.text = `${current.text} ${line.trim()}`;
    } else if (line.trim() !== '') {
      current = undefined;
    }
  });
  const byPhase = new Map<number, Task[]>();
  const place = new Map<Task, number>();
  for (const t of tasks) {
    const list = byPhase.get(t.phase) ?? [];
    place.set(t, list.length);
    list.push(t);
    byPhase.set(t.phase, list);
  }
  const phases = [...byPhase.keys()].sort((a, b) => a - b);
  const previousPhase = new Map(phases.map((p, k) => [p, k > 0 ? byPhase.get(phases[k - 1]) : undefined]));
  const stories = tasks.map((t, index): ImportedStory => {
    let blockedBy = dependsOnIds(t.text);
    if (blockedBy.length === 0) {
      const inPhase = byPhase.get(t.phase) ?? [];
      const before = inPhase[(place.get(t) ?? 0) - 1];
      blockedBy = [...(previousPhase.get(t.phase) ?? []).map((p) => p.id), ...(!t.parallel && before ? [before.id] : [])];
    }
    const description = [t.phaseTitle, t.labels.length > 0 ? `Story: ${t.labels.join(', ')}` : '', t.parallel ? 'May run in parallel [P].' : ''].filter((s) => s !== '').join('\n');
    return {
      id: t.id,
      title: titleOf(t.text),
      description,
      acceptanceCriteria: [t.text],
      priority: index + 1,
      passes: t.done,
      ...(blockedBy.length > 0 ? { blockedBy } : {}),
      source: { format: 'spec-kit', file, id: t.id },
    };
  });
  return { format: 'spec-kit', stories, warnings };
}
