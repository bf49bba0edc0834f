/**
 * The answer of `ralph-workbench next` for a clean prd.json, from JSON.parse alone: no Story
 * objects, no positions, no graph objects, no copies of the stories' text. A loop script asks it
 * before every iteration, and on 10,000 stories building the full model (and collecting its
 * garbage) costs more than reading the file.
 *
 * It answers only when the full analysis (analyzePrd) would find no problem at all, and then gives
 * exactly its answer (test/unit/quickNext.test.ts holds the two equal on random and hostile
 * files). At the first thing that could make a problem, or that it does not read the way
 * buildStory does (a number id, an id with spaces around it in a dependency list), it returns
 * undefined and the caller runs the full analysis, which reports the problems where they are.
 */
import { MAX_NESTING } from './document';
import { DEPENDENCY_KEYS } from './dependencyKeys';
import type { PlanState, Readiness } from './readiness';
import { CONTROL } from './story';

/** What `next` says: the fields of its --json output, and the counts its text needs. */
export interface NextAnswer {
  readonly state: PlanState;
  readonly next: { readonly id: string; readonly title: string; readonly priority: number | null } | null;
  readonly blocked: readonly { readonly id: string; readonly waitingOn: readonly string[] }[];
  readonly total: number;
  readonly done: number;
}

/** The answer from a full analysis's readiness. */
export function nextAnswerOf(r: Readiness): NextAnswer {
  const next = r.next ? { id: r.next.story.id, title: r.next.story.title, priority: Number.isFinite(r.next.story.priority) ? r.next.story.priority : null } : null;
  return { state: r.state, next, blocked: r.blocked, total: r.counts.total, done: r.counts.done };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The answer for a clean file, or undefined when the file needs the full analysis. */
export function quickNext(bytes: Uint8Array): NextAnswer | undefined {
  // The same bytes to text as parsePrdBytes and readPrd: a UTF-8 BOM, then a U+FEFF, are dropped.
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  let text: string;
  try {
    text = strictUtf8.decode(bom ? bytes.subarray(3) : bytes);
  } catch {
    return undefined;
  }
  if (text.charCodeAt(0) === 0xfeff) {
    text = text.slice(1);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  // After JSON.parse, so that the scan can rely on well-formed strings. The text, not the parsed
  // value: a repeated key's earlier value, which JSON.parse drops, counts for the full path too.
  if (nestsTooDeep(text)) {
    return undefined;
  }
  return answerOf(data);
}

/**
 * From one bracket outside strings to the next: any run of other characters and whole strings
 * (well-formed: the text passed JSON.parse), then the bracket. Unrolled, so it never backtracks.
 */
const TO_NEXT_BRACKET = /[^"[\]{}]*(?:"[^"\\]*(?:\\.[^"\\]*)*"[^"[\]{}]*)*[[\]{}]/gy;

/** Whether valid JSON text nests deeper than MAX_NESTING (what tooDeepAt refuses), one native match per bracket. */
function nestsTooDeep(text: string): boolean {
  TO_NEXT_BRACKET.lastIndex = 0;
  let depth = 0;
  while (TO_NEXT_BRACKET.test(text)) {
    const c = text.charCodeAt(TO_NEXT_BRACKET.lastIndex - 1);
    if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > MAX_NESTING) {
        return true;
      }
    } else {
      depth--;
    }
  }
  return false;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A text field the full path reads without a word: absent, null or a string. */
function optionalText(v: unknown): boolean {
  return v === undefined || v === null || typeof v === 'string';
}

/**
 * The dependency list of a story buildStory reads without a problem (undefined: none), or false.
 * Its ids must be non-empty strings without spaces around them (buildStory trims those silently;
 * leaving them to the full path keeps this reader from having to).
 */
function dependencyList(story: Record<string, unknown>): readonly string[] | undefined | false {
  let list: unknown;
  for (let k = 0; k < DEPENDENCY_KEYS.length; k++) {
    const v = story[DEPENDENCY_KEYS[k]];
    if (v !== undefined && v !== null) {
      if (list !== undefined) {
        return false; // two keys: a warning
      }
      list = v;
    }
  }
  if (list === undefined) {
    return undefined;
  }
  if (!Array.isArray(list)) {
    return false;
  }
  for (let k = 0; k < list.length; k++) {
    const ref: unknown = list[k];
    if (typeof ref !== 'string' || ref === '' || ref.trim() !== ref) {
      return false;
    }
  }
  return list as string[];
}

/** Whether buildStory reads the story without a problem (dependencies apart). */
function cleanStory(s: Record<string, unknown>): boolean {
  const id = s.id;
  if (typeof id !== 'string' || id === '' || id.trim() !== id || id.charCodeAt(0) === 45 /* - */ || CONTROL.test(id)) {
    return false;
  }
  if (typeof s.title !== 'string' || typeof s.description !== 'string' || !optionalText(s.notes) || typeof s.passes !== 'boolean') {
    return false;
  }
  if (typeof s.priority !== 'number' || !Number.isFinite(s.priority)) {
    return false;
  }
  const criteria = s.acceptanceCriteria;
  if (!Array.isArray(criteria)) {
    return false;
  }
  for (let k = 0; k < criteria.length; k++) {
    if (typeof criteria[k] !== 'string') {
      return false;
    }
  }
  return true;
}

const NO_DEPENDENCIES: readonly string[] = [];

/**
 * The answer from the parsed file, or undefined at the first sign of a problem. Per story it keeps
 * only typed arrays and the parsed dependency lists; a blocked story's entry is the one allocation
 * the output itself needs. Indexed loops, not for…of: this code runs once per process, mostly
 * before the JIT has optimised it, where an array iterator costs an object per step.
 */
function answerOf(data: unknown): NextAnswer | undefined {
  // The standard shape only ({"userStories": [...]}), with the metadata the full path reads as it is.
  if (!isRecord(data) || !Array.isArray(data.userStories)) {
    return undefined;
  }
  if (!optionalText(data.projectName) || !optionalText(data.branchName) || !optionalText(data.description)) {
    return undefined;
  }
  const list: unknown[] = data.userStories;
  const n = list.length;
  const byId = new Map<string, number>();
  const passes = new Uint8Array(n);
  const deps: (readonly string[] | undefined)[] = new Array<readonly string[] | undefined>(n);
  let edges = 0;
  for (let i = 0; i < n; i++) {
    const s = list[i];
    if (!isRecord(s) || !cleanStory(s)) {
      return undefined;
    }
    const d = dependencyList(s);
    const id = s.id as string;
    if (d === false || byId.has(id)) {
      return undefined;
    }
    byId.set(id, i);
    passes[i] = s.passes ? 1 : 0;
    deps[i] = d;
    edges += d?.length ?? 0;
  }

  // The edges (story i waits on target[e] for e in first[i] ≤ e < first[i + 1]): every id known, none its own.
  const first = new Int32Array(n + 1);
  const target = new Int32Array(edges);
  let e = 0;
  for (let i = 0; i < n; i++) {
    first[i] = e;
    const refs = deps[i] ?? NO_DEPENDENCIES;
    for (let k = 0; k < refs.length; k++) {
      const j = byId.get(refs[k]);
      if (j === undefined || j === i) {
        return undefined;
      }
      target[e++] = j;
    }
  }
  first[n] = e;
  if (hasCycle(n, first, target)) {
    return undefined;
  }

  // Ready: not passing, every dependency passing; next: the lowest priority, ties in file order.
  let done = 0;
  let next = -1;
  let nextPriority = 0;
  const blocked: { id: string; waitingOn: string[] }[] = [];
  for (let i = 0; i < n; i++) {
    if (passes[i]) {
      done++;
      continue;
    }
    let waits = false;
    for (let k = first[i]; k < first[i + 1] && !waits; k++) {
      waits = passes[target[k]] === 0;
    }
    const story = list[i] as Record<string, unknown>;
    if (!waits) {
      const p = story.priority as number;
      if (next < 0 || p < nextPriority) {
        next = i;
        nextPriority = p;
      }
      continue;
    }
    const waitingOn: string[] = [];
    const refs = deps[i] as readonly string[];
    for (let k = 0; k < refs.length; k++) {
      if (passes[target[first[i] + k]] === 0 && !waitingOn.includes(refs[k])) {
        waitingOn.push(refs[k]);
      }
    }
    blocked.push({ id: story.id as string, waitingOn });
  }
  const state: PlanState = n === 0 ? 'empty' : done === n ? 'complete' : 'ready';
  if (state === 'ready' && next < 0) {
    // Stories remain and none is ready: impossible without a cycle, but the full path explains it.
    return undefined;
  }
  const s = next >= 0 ? (list[next] as Record<string, unknown>) : undefined;
  return { state, next: s ? { id: s.id as string, title: s.title as string, priority: nextPriority } : null, blocked, total: n, done };
}

/** Whether the waits-on edges close a cycle: an iterative depth-first search over typed arrays. */
function hasCycle(n: number, first: Int32Array, target: Int32Array): boolean {
  const mark = new Uint8Array(n); // 0 unseen, 1 on the path, 2 finished
  const stack = new Int32Array(n);
  const cursor = new Int32Array(n);
  for (let root = 0; root < n; root++) {
    if (mark[root] !== 0 || first[root] === first[root + 1]) {
      continue;
    }
    let top = 0;
    stack[0] = root;
    mark[root] = 1;
    cursor[root] = first[root];
    while (top >= 0) {
      const v = stack[top];
      if (cursor[v] < first[v + 1]) {
        const w = target[cursor[v]++];
        if (mark[w] === 1) {
          return true;
        }
        if (mark[w] === 0) {
          mark[w] = 1;
          cursor[w] = first[w];
          stack[++top] = w;
        }
      } else {
        mark[v] = 2;
        top--;
      }
    }
  }
  return false;
}
