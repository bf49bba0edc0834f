/**
 * Backlog.md task files (`backlog/tasks/task-12 - Title.md`): YAML front matter (`id`, `title`,
 * `status`, `dependencies`, `priority`, `parent_task_id`) and Markdown sections.
 * - id: the front matter id; title; passes: status Done; priority: high 1, medium 2 (also when
 *   absent), low 3; blockedBy: dependencies;
 * - description: the "Description" section; acceptance criteria: the checklist items of
 *   "Acceptance Criteria", then of "Definition of Done" (their `#1` numbers dropped);
 * - notes: every other section (Implementation Plan, Implementation Notes, …) with its heading.
 * A sub-task (parent_task_id) is a task file of its own, so a story of its own; its parent waits on it.
 */
import { parse as parseYaml } from 'yaml';
import { checklistItem, DEFAULT_PRIORITY, type Json, linesOf, parentsWaitOnChildren, priorityOfWord, storyId, str } from './text';
import type { ImportedStory, ImportResult, ImportWarning } from './types';

export interface SourceFile {
  /** Relative to the workspace. */
  readonly file: string;
  readonly text: string;
}



/** The front matter's text and the body after it, or undefined when the file has none. */
export function splitFrontMatter(text: string): { yaml: string; body: string; bodyLine: number } | undefined {
  const lines = linesOf(text.replace(/^\uFEFF/, ''));
  if (lines[0]?.trim() !== '---') {
    return undefined;
  }
  const end = lines.indexOf('---', 1);
  if (end < 0) {
    return undefined;
  }
  return { yaml: lines.slice(1, end).join('\n'), body: lines.slice(end + 1).join('\n'), bodyLine: end + 2 };
}

/** `## Heading` sections of a Markdown body: heading → text (HTML comments such as `<!-- AC:BEGIN -->` dropped). */
function sections(body: string): { heading: string; text: string }[] {
  const out: { heading: string; lines: string[] }[] = [{ heading: '', lines: [] }];
  for (const line of linesOf(body)) {
    const h = /^##\s/.exec(line);
    if (h) {
      out.push({ heading: line.slice(3).trim(), lines: [] });
    } else if (!/^\s*<!--.*-->\s*$/.test(line)) {
      out[out.length - 1].lines.push(line);
    }
  }
  return out.map((s) => ({ heading: s.heading, text: s.lines.join('\n').trim() })).filter((s) => s.heading !== '' || s.text !== '');
}

function items(text: string): string[] {
  return linesOf(text)
    .map((l) => checklistItem(l)?.text.replace(/^#\d+\s+/, ''))
    .filter((t): t is string => t !== undefined && t !== '');
}

function listOf(v: unknown): string[] {
  if (Array.isArray(v)) {
    return v.map(str).filter((s) => s !== '');
  }
  const s = str(v);
  return s === '' ? [] : s.split(',').map((x) => x.trim()).filter((x) => x !== '');
}

export function importBacklogMd(files: readonly SourceFile[]): ImportResult {
  const warnings: ImportWarning[] = [];
  const stories: ImportedStory[] = [];
  const byId = new Map<string, ImportedStory>();
  const parents: { parent: string; child: string; file: string }[] = [];
  for (const { file, text } of files) {
    const split = splitFrontMatter(text);
    if (!split) {
      warnings.push({ file, line: 1, message: 'no front matter (--- id: … ---): not a Backlog.md task, not imported' });
      continue;
    }
    let fm: unknown;
    try {
      fm = parseYaml(split.yaml);
    } catch (e) {
      const line = (e as { linePos?: { line: number }[] }).linePos?.[0]?.line;
      warnings.push({ file, line: line !== undefined ? line + 1 : 1, message: 'the front matter is not valid YAML: not imported' });
      continue;
    }
    const meta = (typeof fm === 'object' && fm !== null ? fm : {}) as Json;
    if (str(meta.id) === '' || str(meta.title) === '') {
      warnings.push({ file, line: 1, message: 'the front matter has no id or no title: not imported' });
      continue;
    }
    const original = str(meta.id);
    const parts = sections(split.body);
    const find = (name: RegExp) => parts.filter((s) => name.test(s.heading));
    const description = find(/^description\b/i).map((s) => s.text).join('\n\n');
    const criteria = [...find(/^acceptance criteria\b/i), ...find(/^definition of done\b/i)].flatMap((s) => items(s.text));
    const rest = parts.filter((s) => !/^(description|acceptance criteria|definition of done)\b/i.test(s.heading));
    let priority = priorityOfWord(meta.priority);
    if (priority === undefined) {
      if (str(meta.priority) !== '') {
        warnings.push({ file, line: 1, message: `priority "${str(meta.priority)}" is not high/medium/low: imported as medium` });
      }
      priority = DEFAULT_PRIORITY;
    }
    const deps = listOf(meta.dependencies);
    const notes = rest.map((s) => (s.heading !== '' ? `## ${s.heading}\n${s.text}` : s.text)).join('\n\n').trim();
    const story: ImportedStory = {
      id: storyId('backlog', original),
      title: str(meta.title),
      description,
      acceptanceCriteria: criteria,
      priority,
      passes: str(meta.status).toLowerCase() === 'done',
      ...(deps.length > 0 ? { blockedBy: deps.map((d) => storyId('backlog', d)) } : {}),
      ...(notes !== '' ? { notes } : {}),
      source: { format: 'backlog', file, id: original },
    };
    if (str(meta.parent_task_id) !== '') {
      parents.push({ parent: storyId('backlog', str(meta.parent_task_id)), child: story.id, file });
    }
    if (byId.has(story.id)) {
      warnings.push({ file, line: 1, message: `${original} is also the id of ${byId.get(story.id)?.source.file}: both imported (the validator reports the duplicate id)` });
    } else {
      byId.set(story.id, story);
    }
    stories.push(story);
  }
  parentsWaitOnChildren(byId, parents, ({ parent, child, file }) => warnings.push({ file, line: 1, message: `${child}: its parent ${parent} is not among the imported tasks: the parent link is not imported` }));
  return { format: 'backlog', stories, warnings };
}
