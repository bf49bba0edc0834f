/**
 * Kiro `.kiro/specs/<feature>/tasks.md`: numbered checkbox tasks (`- [ ] 2. Title`), their bullet
 * lines, `_Requirements: 1.1, 2.3_` lines, and sub-tasks (`  - [ ] 2.1 Title`, `[ ]*` optional).
 * The rule for sub-tasks: each top-level task is one story, and its sub-tasks are acceptance
 * criteria of it (number, title, bullets, requirements, done state and "optional" mark kept in
 * the criterion's text: nothing is lost). Kiro works through its plan in order, so each task is
 * blocked by the task before it; a `_Depends: 4.1_` line names the tasks it waits on instead.
 * - id: KIRO-<number>; passes: the box is checked; priority: the task's place in the file;
 * - description: the task's bullet lines; acceptance criteria: "Requirements: …", then the sub-tasks.
 */
import { linesOf, storyId, titleOf } from './text';
import type { ImportedStory, ImportResult, ImportWarning } from './types';

const TASK = /^(\s*)[-*]\s+\[([ xX~-])\](\*?)\s/;
const NUMBER = /^(\d+(?:\.\d+)*)\.?(?:\s|$)/;
const REQUIREMENTS = /^_?(Requirements|Depends)\s*:/i;

interface Item {
  readonly number: string;
  readonly line: number;
  readonly done: boolean;
  readonly optional: boolean;
  readonly title: string;
  readonly bullets: string[];
  requirements: string;
  depends: string[];
  readonly subs: Item[];
}

function criterionOf(sub: Item): string {
  const parts = [`${sub.number} ${sub.title}`.trim()];
  if (sub.bullets.length > 0) {
    parts.push(`: ${sub.bullets.join('; ')}`);
  }
  if (sub.requirements !== '') {
    parts.push(` (Requirements: ${sub.requirements})`);
  }
  if (sub.depends.length > 0) {
    parts.push(` (Depends: ${sub.depends.join(', ')})`);
  }
  if (sub.optional) {
    parts.push(' (optional)');
  }
  if (sub.done) {
    parts.push(' [done]');
  }
  return parts.join('');
}

export function importKiro(text: string, file: string): ImportResult {
  const warnings: ImportWarning[] = [];
  const tasks: Item[] = [];
  let current: Item | undefined;
  let top: Item | undefined;
  linesOf(text).forEach((line, i) => {
    const m = TASK.exec(line);
    if (m) {
      const rest = line.slice(m[0].length).trim();
      const n = NUMBER.exec(rest);
      const item: Item = { number: n ? n[1] : '', line: i + 1, done: m[2] === 'x' || m[2] === 'X', optional: m[3] === '*', title: n ? rest.slice(n[0].length).trim() : rest, bullets: [], requirements: '', depends: [], subs: [] };
      if (m[1].length === 0 || !top) {
        top = item;
        tasks.push(item);
      } else {
        top.subs.push(item);
      }
      current = item;
      return;
    }
    const bullet = /^\s+[-*]\s/.exec(line);
    const text = bullet ? line.slice(bullet[0].length).trim() : '';
    if (bullet && current && text !== '') {
      const req = REQUIREMENTS.exec(text);
      const value = req ? text.slice(req[0].length).replace(/_$/, '').trim() : '';
      if (req && req[1].toLowerCase() === 'requirements') {
        current.requirements = value;
      } else if (req) {
        current.depends = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
      } else {
        current.bullets.push(text);
      }
      return;
    }
    if (/^\S/.test(line) && !/^#/.test(line)) {
      // prose at the margin ends the task it follows
      current = undefined;
      top = undefined;
    }
  });
  const stories: ImportedStory[] = [];
  tasks.forEach((t, index) => {
    const original = t.number !== '' ? t.number : `L${t.line}`;
    if (t.number === '') {
      warnings.push({ line: t.line, message: `task without a number: imported as ${storyId('kiro', original)}` });
    }
    const previous = tasks[index - 1];
    const id = storyId('kiro', original);
    const named = t.depends.length > 0 ? t.depends.map((d) => storyId('kiro', d.split('.')[0])) : previous ? [storyId('kiro', previous.number !== '' ? previous.number : `L${previous.line}`)] : [];
    const blockedBy = [...new Set(named)].filter((b) => b !== id);
    const criteria = [...(t.requirements !== '' ? [`Requirements: ${t.requirements}`] : []), ...t.subs.map(criterionOf)];
    stories.push({
      id,
      title: titleOf(t.title),
      description: [t.title.length > 100 ? t.title : '', ...t.bullets, t.optional ? '(optional)' : ''].filter((s) => s !== '').join('\n'),
      acceptanceCriteria: criteria,
      priority: index + 1,
      passes: t.done,
      ...(blockedBy.length > 0 ? { blockedBy } : {}),
      source: { format: 'kiro', file, id: original },
    });
  });
  return { format: 'kiro', stories, warnings };
}
