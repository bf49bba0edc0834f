/**
 * The edits of a story by its id, for the task graph and the Stories view: add or remove a
 * dependency, change a story's title, description, priority, acceptance criteria or passes, add a story.
 * Each reads the text it edits (the snapshot the views show may be a moment older than the editor).
 * A story is addressed where the prd model found it (`Story.path`), so every shape the model reads
 * ({"userStories": […]}, {"stories": […]}, {"prd": {"stories": […]}}, phases, a top-level array) is
 * edited alike. Each is a minimal text edit (jsonEdits.ts, or edits.ts for removals) inside the
 * story (after the last story, for a new story), in the file's own layout (a one-line file stays one
 * line), at the copy of a repeated key JSON.parse reads: formatting, key order and unknown fields are kept, and
 * a dependency goes under the key the story already uses (blockedBy or an alias). A dependency that
 * would close a cycle is refused with the cycle.
 */
import { issuesOfField } from '../artifacts/storyIssues';
import { blockerRefusal } from './blockers';
import { type DependencyKey, DEPENDENCY_KEYS } from './dependencyKeys';
import { applyEdits, removeBlockedByEdits, setPassesEdits, type TextEdit } from './edits';
import { appendElementEdits, jsonTree as tree, nodeAt, setValueEdits } from './jsonEdits';
import { parsePrd } from './document';
import { analyzePrd } from './index';
import type { JsonPath, PrdDocument, Story } from './model';
import { formatCycle, shortId } from './problems';
import { cycleCloser } from './schedule';

export type GraphEditResult = { readonly ok: true; readonly edits: TextEdit[] } | { readonly ok: false; readonly message: string; readonly cycle?: readonly string[] };

const fail = (message: string, cycle?: readonly string[]): GraphEditResult => ({ ok: false, message, cycle });
const noStory = (id: string): GraphEditResult => fail(`There is no story "${id}" in prd.json.`);

/** The stories as the model reads them (no positions: an edit needs each story's path, not its range). */
function read(text: string): PrdDocument {
  return parsePrd(text, { positions: false });
}

/** The story the model read under this id (the graph's node id: the first story with it). */
function storyById(doc: PrdDocument, id: string): Story | undefined {
  return doc.stories.find((s) => s.id === id);
}

/** The dependency key of a story: its own, else the one most stories of the file use, else blockedBy. */
export function dependencyKeyFor(stories: readonly Story[], story?: Story): DependencyKey {
  if (story?.dependencyKey) {
    return story.dependencyKey;
  }
  const counts = new Map<DependencyKey, number>();
  for (const s of stories) {
    if (s.dependencyKey) {
      counts.set(s.dependencyKey, (counts.get(s.dependencyKey) ?? 0) + 1);
    }
  }
  let best: DependencyKey = 'blockedBy';
  let bestCount = 0;
  for (const k of DEPENDENCY_KEYS) {
    if ((counts.get(k) ?? 0) > bestCount) {
      best = k;
      bestCount = counts.get(k) ?? 0;
    }
  }
  return best;
}

/** `story` waits on `blocker` from now on. Refused when either is unknown, it already does, or it would close a cycle. */
export function addDependencyEdits(text: string, storyId: string, blockerId: string): GraphEditResult {
  const analysis = analyzePrd(text);
  const story = storyById(analysis.doc, storyId);
  const blocker = storyById(analysis.doc, blockerId);
  if (!story) {
    return noStory(storyId);
  }
  if (!blocker) {
    return noStory(blockerId);
  }
  const stories = analysis.doc.stories;
  const refusal = blockerRefusal(story, blocker, stories.indexOf(blocker), cycleCloser(analysis.readiness.schedule.graph, stories.indexOf(story)));
  if (refusal?.kind === 'no-id') {
    return fail(`${blockerId} has no id in prd.json (it is shown by its position): give it an id before another story can wait on it.`);
  }
  if (refusal?.kind === 'already') {
    return fail(`${storyId} already waits on ${blockerId}.`);
  }
  if (refusal?.kind === 'cycle') {
    // A story without an id is named by its position, as the graph shows it.
    const ids = refusal.cycle.map((i) => stories[i].id || `#${i + 1}`);
    return fail(`${shortId(storyId)} cannot wait on ${shortId(blockerId)}: that would close the cycle ${formatCycle(ids)}.`, ids);
  }
  const key = dependencyKeyFor(analysis.doc.stories, story);
  const array = nodeAt(tree(text), [...story.path, key]);
  if (array?.type === 'array') {
    return { ok: true, edits: appendElementEdits(text, [...story.path, key], blockerId) };
  }
  return { ok: true, edits: setValueEdits(text, [...story.path, key], [blockerId]) };
}

/** `story` no longer waits on `blocker`: every entry naming it, under any dependency key, is removed. */
export function removeDependencyEdits(text: string, storyId: string, blockerId: string): GraphEditResult {
  const story = storyById(read(text), storyId);
  if (!story) {
    return noStory(storyId);
  }
  // Last element first in each array, so the indexes still to remove stay valid.
  const refs = story.blockedBy.filter((r) => r.id === blockerId).sort((x, y) => (x.key === y.key ? y.elementIndex - x.elementIndex : x.key < y.key ? -1 : 1));
  if (refs.length === 0) {
    return fail(`${storyId} does not wait on ${blockerId}.`);
  }
  if (refs.length === 1) {
    return { ok: true, edits: removeBlockedByEdits(text, story.path, refs[0].elementIndex, refs[0].key) };
  }
  let out = text;
  for (const r of refs) {
    out = applyEdits(out, removeBlockedByEdits(out, story.path, r.elementIndex, r.key));
  }
  return { ok: true, edits: [changedSpan(text, out)] };
}

/** One edit from `before` to `after`: the span between their common start and common end. */
function changedSpan(before: string, after: string): TextEdit {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) {
    start++;
  }
  let end = 0;
  while (end < before.length - start && end < after.length - start && before[before.length - 1 - end] === after[after.length - 1 - end]) {
    end++;
  }
  return { offset: start, length: before.length - start - end, content: after.slice(start, after.length - end) };
}

export type EditableStoryField = 'title' | 'description' | 'priority' | 'acceptanceCriteria';

/** Sets one field of a story; the value is checked against the field's type. */
export function setStoryFieldEdits(text: string, storyId: string, field: EditableStoryField, value: unknown): GraphEditResult {
  const story = storyById(read(text), storyId);
  if (!story) {
    return noStory(storyId);
  }
  let v: string | number | string[];
  if (field === 'priority') {
    const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
    if (!Number.isFinite(n)) {
      return fail('Priority must be a number.');
    }
    v = n;
  } else if (field === 'acceptanceCriteria') {
    const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/\r?\n/) : undefined;
    if (!list || !list.every((x) => typeof x === 'string')) {
      return fail('Acceptance criteria must be a list of lines.');
    }
    v = (list as string[]).map((x) => x.trim()).filter((x) => x !== '');
  } else {
    if (typeof value !== 'string') {
      return fail(`The ${field} must be text.`);
    }
    if (field === 'title' && value.trim() === '') {
      return fail('A story needs a title.');
    }
    v = value;
  }
  const root = tree(text);
  // The criteria go under the key the story already uses (the model reads the snake_case synonym too).
  let key: string = field;
  if (field === 'acceptanceCriteria' && !nodeAt(root, [...story.path, field]) && nodeAt(root, [...story.path, 'acceptance_criteria'])) {
    key = 'acceptance_criteria';
  }
  const current = nodeAt(root, [...story.path, key]);
  if (current && JSON.stringify(current.type === 'array' ? (current.children ?? []).map((c) => c.value) : current.value) === JSON.stringify(v)) {
    return { ok: true, edits: [] };
  }
  return { ok: true, edits: setValueEdits(text, [...story.path, key], v) };
}

/**
 * Sets the `issue` field of several stories at once (a publish): one minimal edit per story whose
 * field does not already say that number; stories no longer in the file are skipped.
 */
export function setIssueFieldsEdits(text: string, numbers: ReadonlyMap<string, number>): TextEdit[] {
  // Each edit is within its own story's object, against the same text: they never overlap.
  const doc = read(text);
  const edits: TextEdit[] = [];
  for (const [storyId, n] of numbers) {
    const story = storyById(doc, storyId);
    // A field that already names this issue, however written ("#42", "GH-0042", a URL), stays as it is.
    if (story && issuesOfField(story)[0] !== n) {
      edits.push(...setValueEdits(text, [...story.path, 'issue'], n));
    }
  }
  return edits.sort((a, b) => a.offset - b.offset);
}

/** Marks a story as passing or not (Mark as Passing in the Stories view). */
export function setPassesByIdEdits(text: string, storyId: string, passes: boolean): GraphEditResult {
  const story = storyById(read(text), storyId);
  return story ? { ok: true, edits: setPassesEdits(text, story.path, passes) } : fail(`Story "${storyId}" is no longer in prd.json.`);
}

/** An id's prefix and trailing digits (`US-012` → `US-`, `012`), read from the end: no backtracking. */
function trailingNumber(id: string): [string, string, string] | undefined {
  let k = id.length;
  while (k > 0 && id.charCodeAt(k - 1) >= 48 && id.charCodeAt(k - 1) <= 57) {
    k--;
  }
  return k < id.length ? [id, id.slice(0, k), id.slice(k)] : undefined;
}

/**
 * The id after the highest one of the file's `PREFIX-NNN` ids (US-013 after US-012), or US-001.
 * The numbers are BigInts: ids such as US-9007199254740993 are past what a JavaScript number
 * holds exactly, and counting them with numbers would never reach a free id.
 */
export function nextStoryId(ids: readonly string[]): string {
  let prefix = 'US-';
  let width = 3;
  let max = 0n;
  for (const id of ids) {
    const m = trailingNumber(id);
    if (m && BigInt(m[2]) >= max) {
      prefix = m[1];
      width = m[2].length;
      max = BigInt(m[2]);
    }
  }
  const taken = new Set(ids);
  const idOf = (k: bigint): string => `${prefix}${k.toString().padStart(width, '0')}`;
  let k = max + 1n;
  while (taken.has(idOf(k))) {
    k++;
  }
  return idOf(k);
}

/**
 * The list a new story goes to: the one the last story is in (stories spread over several lists,
 * as in phases, get it after the last one), else the file's only (empty) story list.
 */
function storyListOf(doc: PrdDocument): JsonPath | undefined {
  const last = doc.stories.at(-1);
  return last ? last.path.slice(0, -1) : doc.shape.lists.at(-1);
}

/** Appends a story (next id, priority after the last, not passing) that waits on `blockedBy`. */
export function addStoryEdits(text: string, title: string, blockedBy: readonly string[] = []): GraphEditResult & { id?: string } {
  const doc = read(text);
  const list = storyListOf(doc);
  const root = tree(text);
  const listNode = list && nodeAt(root, list);
  if (!list || listNode?.type !== 'array') {
    return fail('prd.json has no list of stories to add to (a "userStories" array).');
  }
  if (title.trim() === '') {
    return fail('A story needs a title.');
  }
  const stories = doc.stories;
  for (const b of blockedBy) {
    const blocker = storyById(doc, b);
    if (!blocker) {
      return noStory(b);
    }
    if (blocker.idDerived) {
      return fail(`${b} has no id in prd.json (it is shown by its position): give it an id before another story can wait on it.`);
    }
  }
  const id = nextStoryId(stories.filter((s) => !s.idDerived).map((s) => s.id));
  const priorities = stories.map((s) => s.priority).filter(Number.isFinite);
  const story: Record<string, unknown> = {
    id,
    title: title.trim(),
    description: '',
    acceptanceCriteria: ['Typecheck passes'],
    priority: priorities.length > 0 ? Math.max(...priorities) + 1 : 1,
    passes: false,
  };
  if (blockedBy.length > 0) {
    story[dependencyKeyFor(stories)] = [...blockedBy];
  }
  story.notes = '';
  const edits = appendElementEdits(text, list, story);
  return { ok: true, edits, id };
}
