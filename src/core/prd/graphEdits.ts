/**
 * The edits the task graph makes to prd.json: add or remove a dependency, change a story's title,
 * description, priority or acceptance criteria, add a story. Each is a minimal text edit (jsonc-parser
 * `modify`, or edits.ts for removals) so formatting, key order and unknown fields are kept, and a
 * dependency goes under the key the story already uses (blockedBy or an alias). A dependency that
 * would close a cycle is refused with the cycle.
 */
import { findNodeAtLocation, modify, type Node, parseTree } from 'jsonc-parser';
import { cycleClosedBy, taskGraphOf } from '../taskGraph/model';
import { type DependencyKey, DEPENDENCY_KEYS, dependencyKeysOf, isDependencyKey } from './dependencyKeys';
import { formattingOf, removeBlockedByEdits, type TextEdit } from './edits';
import { analyzePrd } from './index';

export type GraphEditResult = { readonly ok: true; readonly edits: TextEdit[] } | { readonly ok: false; readonly message: string; readonly cycle?: readonly string[] };

const fail = (message: string, cycle?: readonly string[]): GraphEditResult => ({ ok: false, message, cycle });

interface Located {
  readonly root: Node;
  readonly index: number;
  readonly object: Node;
}

function locate(text: string, storyId: string): Located | undefined {
  const root = parseTree(text, [], { disallowComments: false, allowTrailingComma: true });
  const list = root && findNodeAtLocation(root, ['userStories']);
  if (!root || list?.type !== 'array') {
    return undefined;
  }
  const items = list.children ?? [];
  for (let i = 0; i < items.length; i++) {
    const idNode = items[i].type === 'object' ? findNodeAtLocation(items[i], ['id']) : undefined;
    if (idNode?.type === 'string' && (idNode.value as string).trim() === storyId) {
      return { root, index: i, object: items[i] };
    }
  }
  return undefined;
}

/** Keys of an object node, in order. */
function keysOf(object: Node): Record<string, true> {
  const out: Record<string, true> = Object.create(null) as Record<string, true>;
  for (const prop of object.children ?? []) {
    const k = prop.children?.[0]?.value;
    if (typeof k === 'string') {
      out[k] = true;
    }
  }
  return out;
}

/** The dependency key of a story: its own, else the one most stories of the file use, else blockedBy. */
export function dependencyKeyFor(root: Node, object: Node): DependencyKey {
  const own = dependencyKeysOf(keysOf(object));
  if (own.length > 0) {
    return own[0];
  }
  const counts = new Map<DependencyKey, number>();
  for (const s of findNodeAtLocation(root, ['userStories'])?.children ?? []) {
    for (const k of s.type === 'object' ? dependencyKeysOf(keysOf(s)) : []) {
      counts.set(k, (counts.get(k) ?? 0) + 1);
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
  const at = locate(text, storyId);
  if (!at) {
    return fail(`There is no story "${storyId}" in prd.json.`);
  }
  const analysis = analyzePrd(text);
  const graph = taskGraphOf(analysis);
  const s = graph.byId.get(storyId);
  const b = graph.byId.get(blockerId);
  if (b === undefined || s === undefined) {
    return fail(`There is no story "${blockerId}" in prd.json.`);
  }
  if (analysis.doc.stories[s].blockedBy.some((r) => r.id === blockerId)) {
    return fail(`${storyId} already waits on ${blockerId}.`);
  }
  const cycle = cycleClosedBy(graph, s, b);
  if (cycle) {
    const ids = cycle.map((i) => graph.nodes[i].id);
    return fail(`${storyId} cannot wait on ${blockerId}: that would close the cycle ${ids.join(' → ')}.`, ids);
  }
  const key = dependencyKeyFor(at.root, at.object);
  const array = findNodeAtLocation(at.object, [key]);
  const formattingOptions = formattingOf(text);
  if (array?.type === 'array') {
    return { ok: true, edits: modify(text, ['userStories', at.index, key, -1], blockerId, { isArrayInsertion: true, formattingOptions }) };
  }
  return { ok: true, edits: modify(text, ['userStories', at.index, key], [blockerId], { formattingOptions }) };
}

/** `story` no longer waits on `blocker` (every entry naming it, under any dependency key). */
export function removeDependencyEdits(text: string, storyId: string, blockerId: string): GraphEditResult {
  const at = locate(text, storyId);
  if (!at) {
    return fail(`There is no story "${storyId}" in prd.json.`);
  }
  for (const key of dependencyKeysOf(keysOf(at.object))) {
    const array = findNodeAtLocation(at.object, [key]);
    const items = array?.type === 'array' ? (array.children ?? []) : [];
    const element = items.findIndex((c) => c.type === 'string' && (c.value as string).trim() === blockerId);
    if (element >= 0 && isDependencyKey(key)) {
      return { ok: true, edits: removeBlockedByEdits(text, at.index, element, key) };
    }
  }
  return fail(`${storyId} does not wait on ${blockerId}.`);
}

export type EditableStoryField = 'title' | 'description' | 'priority' | 'acceptanceCriteria';

/** Sets one field of a story; the value is checked against the field's type. */
export function setStoryFieldEdits(text: string, storyId: string, field: EditableStoryField, value: unknown): GraphEditResult {
  const at = locate(text, storyId);
  if (!at) {
    return fail(`There is no story "${storyId}" in prd.json.`);
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
  const current = findNodeAtLocation(at.object, [field]);
  if (current && JSON.stringify(current.type === 'array' ? (current.children ?? []).map((c) => c.value) : current.value) === JSON.stringify(v)) {
    return { ok: true, edits: [] };
  }
  return { ok: true, edits: modify(text, ['userStories', at.index, field], v, { formattingOptions: formattingOf(text) }) };
}

/** The id after the highest one of the file's `PREFIX-NNN` ids (US-013 after US-012), or US-001. */
export function nextStoryId(ids: readonly string[]): string {
  let prefix = 'US-';
  let width = 3;
  let max = 0;
  for (const id of ids) {
    const m = /^(.*?)(\d+)$/.exec(id);
    if (m && Number(m[2]) >= max) {
      prefix = m[1];
      width = m[2].length;
      max = Number(m[2]);
    }
  }
  const taken = new Set(ids);
  let k = max + 1;
  while (taken.has(`${prefix}${String(k).padStart(width, '0')}`)) {
    k++;
  }
  return `${prefix}${String(k).padStart(width, '0')}`;
}

/** Appends a story (next id, priority after the last, not passing) that waits on `blockedBy`. */
export function addStoryEdits(text: string, title: string, blockedBy: readonly string[] = []): GraphEditResult & { id?: string } {
  const root = parseTree(text, [], { disallowComments: false, allowTrailingComma: true });
  const list = root && findNodeAtLocation(root, ['userStories']);
  if (!root || list?.type !== 'array') {
    return fail('prd.json has no "userStories" array to add to.');
  }
  if (title.trim() === '') {
    return fail('A story needs a title.');
  }
  const analysis = analyzePrd(text);
  const ids = analysis.doc.stories.map((s) => s.id).filter((x) => x !== '');
  for (const b of blockedBy) {
    if (!ids.includes(b)) {
      return fail(`There is no story "${b}" in prd.json.`);
    }
  }
  const id = nextStoryId(ids);
  const priorities = analysis.doc.stories.map((s) => s.priority).filter(Number.isFinite);
  const story: Record<string, unknown> = {
    id,
    title: title.trim(),
    description: '',
    acceptanceCriteria: ['Typecheck passes'],
    priority: priorities.length > 0 ? Math.max(...priorities) + 1 : 1,
    passes: false,
  };
  if (blockedBy.length > 0) {
    const last = (list.children ?? []).filter((c) => c.type === 'object').pop();
    story[last ? dependencyKeyFor(root, last) : 'blockedBy'] = [...blockedBy];
  }
  story.notes = '';
  const edits = modify(text, ['userStories', -1], story, { isArrayInsertion: true, formattingOptions: formattingOf(text) });
  return { ok: true, edits, id };
}
