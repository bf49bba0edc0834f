/**
 * beads `.beads/issues.jsonl`: one issue a line, read line by line (a 100,000-issue file is one
 * pass; every look-up is a Map).
 * - id: the issue id; title; description: description, then design; notes: notes;
 * - acceptance criteria: the checklist items of acceptance_criteria (its lines when it has none),
 *   else those of the design and description;
 * - passes: status closed; priority: the issue's 0–4 (0 first; 2 when absent);
 * - blockedBy: `blocks` dependencies (depends_on_id); `parent-child`: the parent waits on its
 *   children (an epic passes when its parts do), so the child's id joins the parent's blockedBy.
 *   Other types (related, discovered-from, …) do not block: they are written in notes and reported.
 * A line that is not a JSON object with an id and a title is reported with its line and skipped;
 * a deleted issue (status tombstone) too.
 */
import { checklistItems, DEFAULT_PRIORITY, isRecord, type Json, linesOf, parentsWaitOnChildren, storyId, str } from './text';
import type { ImportedStory, ImportResult, ImportWarning } from './types';




function criteriaOf(issue: Json): string[] {
  const ac = str(issue.acceptance_criteria);
  if (ac !== '') {
    const items = checklistItems(ac);
    return items.length > 0 ? items : linesOf(ac).map((l) => l.replace(/^\s*[-*]\s+/, '').trim()).filter((l) => l !== '');
  }
  return [...checklistItems(str(issue.design)), ...checklistItems(str(issue.description))];
}

export function importBeads(text: string, file: string): ImportResult {
  const warnings: ImportWarning[] = [];
  const stories: ImportedStory[] = [];
  const byId = new Map<string, ImportedStory>();
  const children: { parent: string; child: string; line: number }[] = [];
  let start = 0;
  for (let lineNo = 1; start <= text.length; lineNo++) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line === '') {
      if (nl < 0) {
        break;
      }
      continue;
    }
    let issue: unknown;
    try {
      issue = JSON.parse(line);
    } catch {
      warnings.push({ line: lineNo, message: 'not a JSON object (a broken line): not imported' });
      continue;
    }
    if (!isRecord(issue) || str(issue.id) === '' || str(issue.title) === '') {
      warnings.push({ line: lineNo, message: 'an issue needs an "id" and a "title": not imported' });
      continue;
    }
    const original = str(issue.id);
    const status = str(issue.status).toLowerCase();
    if (status === 'tombstone') {
      warnings.push({ line: lineNo, message: `${original} is deleted (status tombstone): not imported` });
      continue;
    }
    const blockedBy: string[] = [];
    const other: string[] = [];
    for (const d of Array.isArray(issue.dependencies) ? issue.dependencies : []) {
      const target = isRecord(d) ? str(d.depends_on_id) : '';
      const type = isRecord(d) ? str(d.type) : '';
      if (target === '') {
        warnings.push({ line: lineNo, message: `${original}: a dependency without depends_on_id: not imported` });
      } else if (type === 'blocks' || type === '') {
        blockedBy.push(storyId('beads', target));
      } else if (type === 'parent-child') {
        children.push({ parent: storyId('beads', target), child: storyId('beads', original), line: lineNo });
      } else {
        other.push(`${type}: ${target}`);
        warnings.push({ line: lineNo, message: `${original}: a "${type}" dependency on ${target} does not block: kept in notes, not in blockedBy` });
      }
    }
    const priority = typeof issue.priority === 'number' && Number.isFinite(issue.priority) ? issue.priority : DEFAULT_PRIORITY;
    const notes = [str(issue.notes), ...other].filter((s) => s !== '').join('\n');
    const story: ImportedStory = {
      id: storyId('beads', original),
      title: str(issue.title),
      description: [str(issue.description), str(issue.design)].filter((s) => s !== '').join('\n\n'),
      acceptanceCriteria: criteriaOf(issue),
      priority,
      passes: status === 'closed',
      ...(blockedBy.length > 0 ? { blockedBy } : {}),
      ...(notes !== '' ? { notes } : {}),
      source: { format: 'beads', file, id: original },
    };
    if (byId.has(story.id)) {
      warnings.push({ line: lineNo, message: `${original} appears again: both imported (the validator reports the duplicate id)` });
    } else {
      byId.set(story.id, story);
    }
    stories.push(story);
  }
  parentsWaitOnChildren(byId, children, ({ parent, child, line }) => warnings.push({ line, message: `${child}: its parent ${parent} is not in the file: the parent-child link is not imported` }));
  return { format: 'beads', stories, warnings };
}
