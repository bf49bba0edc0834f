/**
 * The same-file guard of the parallel loop (issue 19): before a story starts, predict the files it
 * will touch; two stories predicted to touch the same file do not run at once (unless
 * `ralph.parallel.allowOverlap`), because their merges would conflict.
 *
 * A story's prediction is, in this order, each path once:
 *   1. its `files` hints in prd.json;
 *   2. the files of the Pin modules its words name (see {@link pinModulesFor} for what "name" means);
 *   3. the files its earlier attempts changed (`Files changed` in progress.txt).
 * The memory files every iteration writes are never counted (prd.json and progress.txt, which the
 * merge queue merges itself, AGENTS.md at any level, whose learnings are appended, and `.ralph/`):
 * counting them would make every two stories overlap.
 */
import { keywordsOf, type PinDoc, type PinModule } from '../pin/format';
import type { Story } from '../prd/model';
import type { WaitReason } from './waitReasons';

export type FileSource = 'hint' | 'pin' | 'progress';

export interface PredictedFile {
  /** Repository-relative, `/`-separated, no `./`, no trailing `/` (a folder covers what is inside it). */
  readonly path: string;
  readonly source: FileSource;
  /** The Pin module it came from (source `pin`). */
  readonly module?: string;
}

export interface PredictionInput {
  /** The Pin (specs/INDEX.md), when there is one. */
  readonly pin?: PinDoc;
  /** Files changed by each story's earlier attempts (`filesChangedByStory` of progress.txt). */
  readonly progressFiles?: ReadonlyMap<string, readonly string[]>;
  /** The repository paths of prd.json and progress.txt (default `prd.json`, `progress.txt`). */
  readonly memoryFiles?: readonly string[];
}

export const DEFAULT_MEMORY_FILES: readonly string[] = ['prd.json', 'progress.txt'];

/** The files a story is predicted to touch. */
export function predictFiles(story: Pick<Story, 'id' | 'title' | 'description' | 'notes' | 'files'>, input: PredictionInput = {}): PredictedFile[] {
  const memory = memoryFileSet(input.memoryFiles);
  const out: PredictedFile[] = [];
  const seen = new Set<string>();
  const add = (raw: string, source: FileSource, module?: string) => {
    const path = normaliseFilePath(raw);
    if (path === undefined || seen.has(path) || isMemoryFile(path, memory)) {
      return;
    }
    seen.add(path);
    out.push(module === undefined ? { path, source } : { path, source, module });
  };
  for (const f of story.files ?? []) {
    add(f, 'hint');
  }
  if (input.pin) {
    for (const m of pinModulesFor(input.pin, [story.title, story.description, story.notes ?? ''].join(' '))) {
      for (const f of m.files) {
        add(f, 'pin', m.name);
      }
    }
  }
  for (const f of input.progressFiles?.get(story.id) ?? []) {
    add(f, 'progress');
  }
  return out;
}

/** The predicted paths of every unfinished story (the parallel loop's `predictions`). */
export function predictAll(stories: readonly Pick<Story, 'id' | 'title' | 'description' | 'notes' | 'files' | 'passes'>[], input: PredictionInput = {}): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of stories) {
    if (!s.passes && !out.has(s.id)) {
      out.set(s.id, predictFiles(s, input).map((f) => f.path));
    }
  }
  return out;
}

/**
 * The Pin modules a story's words name, in the Pin's order. A module is named when the words
 * (through `keywordsOf`: lower case, plurals folded, stop-words dropped) contain every word of one
 * of its keywords, or every word of its name. One word of a two-word keyword or name, or a word of
 * a file path, is not enough: that ranks a module for the prompt (`matchPin`) but is too weak to
 * hold a story back.
 */
export function pinModulesFor(doc: PinDoc, words: string): PinModule[] {
  const have = new Set(keywordsOf(words));
  const names = (phrase: string): boolean => {
    const ws = keywordsOf(phrase);
    return ws.length > 0 && ws.every((w) => have.has(w));
  };
  return doc.modules.filter((m) => m.keywords.some(names) || names(m.name));
}

/**
 * One spelling of a path: blanks trimmed, `\` → `/`, no leading `./` or `/`, no empty segment, no
 * trailing `/`; a glob stands for the folder before its first wildcard (`src/api/*.ts` → `src/api`).
 * Undefined when nothing is left (`**\/*.ts`, blank).
 */
export function normaliseFilePath(raw: string): string | undefined {
  const segments = raw.trim().replace(/\\/g, '/').split('/');
  const out: string[] = [];
  for (const seg of segments) {
    if (/[*?[{]/.test(seg)) {
      break;
    }
    if (seg !== '' && seg !== '.') {
      out.push(seg);
    }
  }
  return out.length > 0 ? out.join('/') : undefined;
}

/** The memory files as a set of normalised paths (default prd.json, progress.txt). */
export function memoryFileSet(memoryFiles: readonly string[] = DEFAULT_MEMORY_FILES): ReadonlySet<string> {
  return new Set(memoryFiles.map(normaliseFilePath).filter((p): p is string => p !== undefined));
}

/** A normalised path the guard never counts: prd.json and progress.txt (`memory`), any AGENTS.md, `.ralph/`. */
export function isMemoryFile(path: string, memory: ReadonlySet<string>): boolean {
  return memory.has(path) || path === '.ralph' || path.startsWith('.ralph/') || path === 'AGENTS.md' || path.endsWith('/AGENTS.md');
}

/** Paths as the guard compares them: normalised, each once, memory files dropped. */
export function guardedPaths(paths: readonly string[], memory: ReadonlySet<string> = memoryFileSet()): string[] {
  const out: string[] = [];
  for (const p of paths) {
    const n = normaliseFilePath(p);
    if (n !== undefined && !isMemoryFile(n, memory) && !out.includes(n)) {
      out.push(n);
    }
  }
  return out;
}

/**
 * The files both lists touch: a path in both, or a path inside a folder the other names (a path
 * that is a whole-segment prefix of another names a folder). The more specific path is reported,
 * in the order of `a`.
 */
export function sharedFiles(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  for (const x of a) {
    for (const y of b) {
      const hit = x === y || inside(y, x) ? y : inside(x, y) ? x : undefined;
      if (hit !== undefined && !out.includes(hit)) {
        out.push(hit);
      }
    }
  }
  return out;
}

/** Whether `path` lies inside the folder `folder` (no string built: the guard runs at every event). */
function inside(path: string, folder: string): boolean {
  return path.length > folder.length && path.charCodeAt(folder.length) === 47 /* / */ && path.startsWith(folder);
}

/** The first story among `holders` (in their order) whose files overlap `files`, as the wait reason. */
export function overlapWith(files: readonly string[], holders: Iterable<{ readonly storyId: string; readonly files: readonly string[] }>): Extract<WaitReason, { kind: 'overlap' }> | undefined {
  if (files.length === 0) {
    return undefined;
  }
  for (const h of holders) {
    // A check that builds nothing first: it runs for every ready story against every holder at every event.
    if (files.some((x) => h.files.some((y) => x === y || inside(y, x) || inside(x, y)))) {
      return { kind: 'overlap', waitsFor: h.storyId, files: sharedFiles(files, h.files) };
    }
  }
  return undefined;
}
