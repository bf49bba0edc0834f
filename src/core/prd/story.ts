/**
 * THE Story builder: one story object of a parsed prd.json (plain data, from JSON.parse or from
 * the parse tree) to the lenient Story model, with every problem it meets. Both readers (the fast
 * path and the parse-tree path in document.ts) call it, so they cannot disagree about what a story
 * means; they differ only in how they find positions (a StoryLocator).
 *
 * What is an error and what is a warning (SPEC, issue 9): errors make a story ambiguous or
 * unrunnable (an id that is not text or holds control characters, passes that is not a boolean, a
 * priority that cannot be ordered, a dependency list that is not a list of ids); everything a loop
 * can work without is read anyway and reported as a warning (missing title / description /
 * acceptanceCriteria / priority / id, snake_case synonyms, priority words, a status field instead
 * of passes, blockedBy together with an alias).
 */
import type { TextRange } from '../text';
import { DEPENDENCY_KEYS, type DependencyKey } from './dependencyKeys';
import type { BlockedByRef, JsonPath, Story } from './model';
import { type Problem, type ProblemCode, shortId } from './problems';

/** Where a story's parts are in the text. */
export interface StoryLocator {
  /** The whole story object. */
  readonly range: TextRange;
  /** The value of a key (the last one when a key repeats, as JSON.parse reads it). */
  value(key: string): TextRange | undefined;
  /** Element `k` of the array under `key`. */
  element(key: string, k: number): TextRange | undefined;
}

/** Keys whose array elements the locators must be able to place. */
export const ELEMENT_KEYS: ReadonlySet<string> = new Set([...DEPENDENCY_KEYS, 'acceptanceCriteria', 'acceptance_criteria']);

const PASSING_STATUS = new Set(['done', 'complete', 'completed', 'passed', 'pass', 'closed', 'resolved']);
const PRIORITY_WORDS: Readonly<Record<string, number>> = { critical: 0, high: 1, medium: 2, low: 3 };

/** A priority written as a word (critical 0, high 1, medium 2, low 3; P0–P999; a number in a string) as a number, else undefined. The importers map their priorities with it too. */
export function priorityOfWord(raw: unknown): number | undefined {
  const word = typeof raw === 'string' ? raw.trim().toLowerCase() : undefined;
  return word === undefined ? undefined : Object.hasOwn(PRIORITY_WORDS, word) ? PRIORITY_WORDS[word] : /^p\d{1,3}$/.test(word) ? Number(word.slice(1)) : /^-?\d+(\.\d+)?$/.test(word) ? Number(word) : undefined;
}
// C0 and C1 control characters, DEL included: a terminal acts on them (TAB completes, ESC starts a sequence).
export const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function describeValue(v: unknown): string {
  if (v === null) {
    return 'null';
  }
  if (Array.isArray(v)) {
    return 'an array';
  }
  if (typeof v === 'string') {
    return `a string (${JSON.stringify(shortId(v))})`;
  }
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v).slice(0, 40)}`;
}

/** Warnings that many stories share become one problem per kind, at the first story, with a count. */
interface Tally {
  code: ProblemCode;
  range: TextRange;
  storyId: string;
  storyIndex: number;
  count: number;
  paths: JsonPath[];
  ids: string[];
  message: (count: number, firstId: string) => string;
}

/** Collects the problems of all the stories of one file. */
export class StoryFindings {
  readonly problems: Problem[] = [];
  private readonly tallies = new Map<string, Tally>();

  error(code: ProblemCode, message: string, range: TextRange, story?: { id: string; index: number }): void {
    this.problems.push({ code, severity: 'error', message, range, storyId: story?.id, storyIndex: story?.index });
  }

  warn(code: ProblemCode, message: string, range: TextRange, story?: { id: string; index: number }): void {
    this.problems.push({ code, severity: 'warning', message, range, storyId: story?.id, storyIndex: story?.index });
  }

  tally(key: string, code: ProblemCode, range: TextRange, story: { id: string; index: number; path: JsonPath }, message: Tally['message']): void {
    const t = this.tallies.get(key);
    if (t) {
      t.count++;
      t.paths.push(story.path);
      t.ids.push(story.id);
      return;
    }
    this.tallies.set(key, { code, range, storyId: story.id, storyIndex: story.index, count: 1, paths: [story.path], ids: [story.id], message });
  }

  /** The problems, tallies included (in the order they were first met). */
  finish(proposeId: (index: number) => string): Problem[] {
    for (const [key, t] of this.tallies) {
      const p: Problem = { code: t.code, severity: 'warning', message: t.message(t.count, t.storyId), range: t.range, storyId: t.storyId, storyIndex: t.storyIndex };
      if (key === 'missing-id') {
        const ids = t.paths.map((_, k) => proposeId(Number(t.ids[k].slice(1)) - 1));
        this.problems.push({ ...p, fixes: [{ kind: 'write-ids', title: `Write ids for the ${t.count === 1 ? 'story' : `${t.count} stories`} without one (${ids[0]}${t.count > 1 ? ', …' : ''})`, storyPaths: t.paths, ids }] });
      } else {
        this.problems.push(p);
      }
    }
    return this.problems;
  }
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** A Story from one element of the story list. */
export function buildStory(raw: Record<string, unknown>, index: number, path: JsonPath, at: StoryLocator, out: StoryFindings): Story {
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(raw, k);
  const brace: TextRange = { ...at.range, length: 1, end: { line: at.range.start.line, character: at.range.start.character + 1 } };
  const where = (k: string): TextRange => at.value(k) ?? brace;

  // id
  const idRange = at.value('id') ?? brace;
  let id = '';
  let idDerived = false;
  const rawId = has('id') ? raw.id : undefined;
  if (typeof rawId === 'string') {
    id = rawId.trim();
  } else if (typeof rawId === 'number' && Number.isFinite(rawId)) {
    id = String(rawId);
  }
  const self = (): { id: string; index: number; path: JsonPath } => ({ id, index, path });
  if (id === '') {
    idDerived = true;
    id = `#${index + 1}`;
    if (rawId === undefined || rawId === null || rawId === '' || (typeof rawId === 'string' && rawId.trim() === '')) {
      out.tally('missing-id', 'missing-id', idRange, self(), (n, first) =>
        n === 1 ? `Story ${first} has no id: it is shown as ${first} (its position). Give it an id so other stories can depend on it.` : `${plural(n, 'story', 'stories')} have no id: they are shown as #<position> (${first} first). Give them ids so other stories can depend on them.`,
      );
    } else {
      out.error('schema', `${describePath(path)}.id: expected a string, got ${describeValue(rawId)}.`, idRange, self());
    }
  } else if (CONTROL.test(id)) {
    const c = CONTROL.exec(id)?.[0] ?? '';
    out.error('schema', `${describePath(path)}.id: a story id must not contain a control character (found U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}): it would reach a terminal.`, idRange, self());
  } else if (typeof rawId === 'string' && rawId !== id) {
    out.error('schema', `${describePath(path)}.id: a story id must not start or end with spaces.`, idRange, self());
  } else if (id.startsWith('-')) {
    out.warn('option-like-id', `Story id "${shortId(id)}" starts with "-": a program would read it as an option, so Ralph Workbench will not run this story. Rename it.`, idRange, self());
  }

  // title, description, notes
  const text = (k: string): string | undefined => {
    const v = has(k) ? raw[k] : undefined;
    if (v === undefined || v === null) {
      return undefined;
    }
    if (typeof v !== 'string') {
      out.warn('schema', `${describePath(path)}.${k}: expected a string, got ${describeValue(v)}; ignored.`, where(k), self());
      return undefined;
    }
    return v;
  };
  const description = text('description');
  let title = text('title');
  if (title === undefined) {
    const fallback = description?.split(/\r?\n/)[0].trim().slice(0, 80) ?? '';
    out.tally('missing-title', 'missing-field', brace, self(), (n, first) =>
      `${n === 1 ? `Story ${first} has` : `${plural(n, 'story', 'stories')} have`} no "title"${description !== undefined ? ': shown with the first line of the description' : ''} (${first} first). The commit of a story is "feat: <id> - <title>".`,
    );
    title = fallback;
  }
  if (description === undefined) {
    out.tally('missing-description', 'missing-field', brace, self(), (n, first) => `${n === 1 ? `Story ${first} has` : `${plural(n, 'story', 'stories')} have`} no "description" (${first} first): the agent gets only the title.`);
  }
  const notes = text('notes');

  // acceptanceCriteria (or its snake_case synonym)
  let criteriaKey = 'acceptanceCriteria';
  if (!has('acceptanceCriteria') && has('acceptance_criteria')) {
    criteriaKey = 'acceptance_criteria';
    out.tally('synonym-acceptance_criteria', 'field-synonym', where(criteriaKey), self(), (n, first) => `"acceptance_criteria" read as "acceptanceCriteria" in ${plural(n, 'story', 'stories')} (${first} first).`);
  }
  const acceptanceCriteria: string[] = [];
  const criteriaRanges: TextRange[] = [];
  const rawCriteria = has(criteriaKey) ? raw[criteriaKey] : undefined;
  if (Array.isArray(rawCriteria)) {
    rawCriteria.forEach((c, k) => {
      if (typeof c === 'string') {
        acceptanceCriteria.push(c);
        criteriaRanges.push(at.element(criteriaKey, k) ?? where(criteriaKey));
      }
    });
    if (acceptanceCriteria.length < rawCriteria.length) {
      out.warn('schema', `${describePath(path)}.${criteriaKey}: ${plural(rawCriteria.length - acceptanceCriteria.length, 'entry', 'entries')} that ${rawCriteria.length - acceptanceCriteria.length === 1 ? 'is' : 'are'} not text ignored.`, where(criteriaKey), self());
    }
  } else if (rawCriteria === undefined || rawCriteria === null) {
    out.tally('missing-criteria', 'missing-field', brace, self(), (n, first) => `${n === 1 ? `Story ${first} has` : `${plural(n, 'story', 'stories')} have`} no "acceptanceCriteria" (${first} first): the agent has nothing to check its work against.`);
  } else {
    out.warn('schema', `${describePath(path)}.${criteriaKey}: expected an array of strings, got ${describeValue(rawCriteria)}; ignored.`, where(criteriaKey), self());
  }

  // priority
  let priority = Number.POSITIVE_INFINITY;
  const rawPriority = has('priority') ? raw.priority : undefined;
  if (typeof rawPriority === 'number' && Number.isFinite(rawPriority)) {
    priority = rawPriority;
  } else if (rawPriority === undefined || rawPriority === null) {
    out.tally('missing-priority', 'priority', brace, self(), (n, first) => `${n === 1 ? `Story ${first} has` : `${plural(n, 'story', 'stories')} have`} no "priority" (${first} first): they run after the stories that have one, in file order.`);
  } else {
    const mapped = priorityOfWord(rawPriority);
    if (mapped === undefined) {
      out.error('schema', `${describePath(path)}.priority: expected a number (or critical, high, medium, low, P0–P3), got ${describeValue(rawPriority)}: the story cannot be ordered.`, where('priority'), self());
    } else {
      priority = mapped;
      out.tally('priority-words', 'priority', where('priority'), self(), (n, first) => `Priority words read as numbers in ${plural(n, 'story', 'stories')} (${first} first): critical = 0, high = 1, medium = 2, low = 3, P0–P3 = 0–3; lower runs first.`);
    }
  }

  // passes (or a status field)
  let passes = false;
  const rawPasses = has('passes') ? raw.passes : undefined;
  if (typeof rawPasses === 'boolean') {
    passes = rawPasses;
  } else if (rawPasses !== undefined) {
    out.error('schema', `${describePath(path)}.passes: expected a boolean, got ${describeValue(rawPasses)}.`, where('passes'), self());
  } else if (typeof raw.status === 'string' && has('status')) {
    passes = PASSING_STATUS.has(raw.status.trim().toLowerCase());
    out.tally('status', 'status', where('status'), self(), (n, first) => `"status" read as "passes" in ${plural(n, 'story', 'stories')} (${first} first): done, complete, completed, passed, pass, closed and resolved pass; any other value does not.`);
  } else {
    out.tally('missing-passes', 'missing-field', brace, self(), (n, first) => `${n === 1 ? `Story ${first} has` : `${plural(n, 'story', 'stories')} have`} no "passes" (${first} first): read as not passing.`);
  }

  // dependencies: blockedBy and its aliases
  const keys = DEPENDENCY_KEYS.filter((k) => has(k) && raw[k] !== null);
  const blockedBy: BlockedByRef[] = [];
  const dependencies: string[] = [];
  for (const key of keys) {
    const list = raw[key];
    if (!Array.isArray(list)) {
      out.error('schema', `${describePath(path)}.${key}: expected an array of story ids, got ${describeValue(list)}.`, where(key), self());
      continue;
    }
    list.forEach((v, elementIndex) => {
      const range = at.element(key, elementIndex) ?? where(key);
      const ref = typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined;
      if (ref === undefined) {
        out.error('schema', `${describePath(path)}.${key}[${elementIndex}]: expected a story id, got ${describeValue(v)}.`, range, self());
      } else if (ref === '') {
        out.warn('schema', `${describePath(path)}.${key}[${elementIndex}]: an empty id is ignored.`, range, self());
      } else {
        blockedBy.push({ id: ref, elementIndex, range, key: key as DependencyKey });
        if (!dependencies.includes(ref)) {
          dependencies.push(ref);
        }
      }
    });
  }
  if (keys.length > 1) {
    out.warn('dependency-keys', `Story "${shortId(id)}" lists dependencies under ${keys.map((k) => `"${k}"`).join(' and ')}: it waits on all of them. Keep one key.`, where(keys[1]), self());
  }

  // files: hints for the same-file guard of the parallel loop; a loop runs without them.
  let files: string[] | undefined;
  const rawFiles = has('files') ? raw.files : undefined;
  if (Array.isArray(rawFiles)) {
    files = rawFiles.filter((f): f is string => typeof f === 'string' && f.trim() !== '');
    if (files.length < rawFiles.length) {
      const n = rawFiles.length - files.length;
      out.warn('schema', `${describePath(path)}.files: ${plural(n, 'entry', 'entries')} that ${n === 1 ? 'is not a file path' : 'are not file paths'} ignored.`, where('files'), self());
    }
  } else if (rawFiles !== undefined && rawFiles !== null) {
    out.warn('schema', `${describePath(path)}.files: expected a list of file paths, got ${describeValue(rawFiles)}; ignored.`, where('files'), self());
  }

  // Its own key only (`has`): never one inherited from a prototype.
  const issue = has('issue') && raw.issue !== null ? raw.issue : undefined;
  const passesRange = at.value('passes');
  return {
    index,
    id,
    idDerived,
    title,
    priority,
    passes,
    description: description ?? '',
    acceptanceCriteria,
    blockedBy,
    dependencies,
    dependencyKey: keys[0],
    notes,
    ...(files !== undefined ? { files } : {}),
    issue,
    path,
    range: at.range,
    idRange,
    passesRange,
    criteriaRanges,
  };
}

/** `userStories[3]`, `prd.stories[0]`, `[2]` */
export function describePath(path: JsonPath): string {
  let out = '';
  for (const p of path) {
    out += typeof p === 'number' ? `[${p}]` : out === '' ? p : `.${p}`;
  }
  return out;
}
