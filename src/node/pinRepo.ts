/**
 * Generating the Pin for a repository on disk, shared by the CLI (`pin`) and the extension
 * ("Generate the Pin"): list the files (`git ls-files`, or a folder walk that honours .gitignore),
 * read the head of each source file, and merge with the existing specs/INDEX.md.
 *
 * Everything here is asynchronous I/O; the CPU work (scanning 20,000 file heads) still takes
 * seconds, so the extension runs `generateRepoPin` in a worker thread (`generateRepoPinOffThread`,
 * src/node/pinWorker.ts) and its event loop never waits on it. Symbolic links are read only when
 * they stay inside the repository.
 */
import { spawn } from 'node:child_process';
import { lstat, open, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import ignore, { type Ignore } from 'ignore';
import { type PinDoc, type PinModule, parsePin, writePin } from '../core/pin/format';
import { generatePin, normaliseRepoPath, pinReadsFile, SKIPPED_FOLDERS, stalePinFiles } from '../core/pin/generate';
import { decodeText } from '../core/progress/parse';
import { resolveInside } from './workspacePath';

/** Repository files: `git ls-files` (tracked and untracked-but-not-ignored), or undefined when DIR is not in a git repository. */
export function gitFiles(root: string): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn('git', ['-C', root, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], { stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => {
      resolve(code === 0 ? Buffer.concat(chunks).toString('utf8').split('\0').filter((f) => f !== '') : undefined);
    });
  });
}

/** A walk of DIR that honours .gitignore files (at every level) and skips vendored folders. Symbolic links are not followed. */
export async function walkFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const stack: { rel: string; rules: { base: string; ig: Ignore }[] }[] = [{ rel: '', rules: [] }];
  while (stack.length > 0) {
    const { rel, rules } = stack.pop()!;
    const abs = rel === '' ? root : path.join(root, rel);
    let entries;
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch {
      continue;
    }
    let here = rules;
    if (entries.some((e) => e.name === '.gitignore' && e.isFile())) {
      try {
        here = [...rules, { base: rel, ig: ignore().add(await readFile(path.join(abs, '.gitignore'), 'utf8')) }];
      } catch {
        // Unreadable .gitignore: ignore it.
      }
    }
    const ignored = (p: string, dir: boolean): boolean =>
      here.some(({ base, ig }) => {
        const r = base === '' ? p : p.slice(base.length + 1);
        return r !== '' && ig.ignores(dir ? `${r}/` : r);
      });
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (SKIPPED_FOLDERS.has(e.name) || e.name.startsWith('.') || ignored(p, true)) {
          continue;
        }
        stack.push({ rel: p, rules: here });
      } else if (e.isFile() && !ignored(p, false)) {
        out.push(p);
      }
    }
  }
  return out.sort();
}

/**
 * The first `max` bytes of the repository file `rel` as text (enough for imports and exports);
 * undefined when unreadable, not a regular file, or a symbolic link leading out of `root`.
 */
export async function readHead(root: string, rel: string, max = 32768): Promise<string | undefined> {
  try {
    let file = path.join(root, rel);
    const st = await lstat(file);
    if (st.isSymbolicLink()) {
      file = await resolveInside(root, rel, { what: 'Pin source file' });
    } else if (!st.isFile()) {
      return undefined;
    }
    const handle = await open(file, 'r');
    try {
      if (!(await handle.stat()).isFile()) {
        return undefined;
      }
      const buf = Buffer.allocUnsafe(max);
      const { bytesRead } = await handle.read(buf, 0, max, 0);
      return buf.toString('utf8', 0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/** Whether a merged module is unchanged from what the file said. */
export function sameModule(m: PinModule): boolean {
  const s = m.source;
  if (!s) {
    return false;
  }
  const eq = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((v, i) => v === b[i]);
  return m.name === s.name && eq(m.description, s.description) && eq(m.keywords, s.keywords) && eq(m.files, s.files) && m.spec === s.spec;
}

export interface RepoPin {
  readonly doc: PinDoc;
  readonly text: string;
  /** The Pin file's text before, undefined when it did not exist. */
  readonly existingText?: string;
  readonly source: 'git' | 'walk';
  readonly files: readonly string[];
  readonly added: number;
  readonly updated: number;
  readonly stale: readonly { module: string; file: string }[];
}

/** Heads of the files the Pin scans (by normalised path), read with a bounded number of reads in flight. */
async function readHeads(root: string, files: readonly string[]): Promise<Map<string, string>> {
  const heads = new Map<string, string>();
  const todo: string[] = [];
  for (const f of files) {
    const n = normaliseRepoPath(f);
    if (n !== undefined && pinReadsFile(n)) {
      todo.push(n);
    }
  }
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < todo.length) {
      const p = todo[next++];
      const text = await readHead(root, p);
      if (text !== undefined) {
        heads.set(p, text);
      }
    }
  };
  await Promise.all(Array.from({ length: 32 }, lane));
  return heads;
}

/** Generates the Pin of the repository at `root`, merged with the Pin file at `pinFile` (absolute). */
export async function generateRepoPin(root: string, pinFile: string): Promise<RepoPin> {
  let files = await gitFiles(root);
  let source: 'git' | 'walk' = 'git';
  if (files === undefined) {
    source = 'walk';
    files = await walkFiles(root);
  }
  let existingText: string | undefined;
  try {
    existingText = decodeText(await readFile(await resolveInside(root, path.relative(root, pinFile), { what: 'Pin file' })));
  } catch {
    existingText = undefined;
  }
  const existing = existingText !== undefined ? parsePin(existingText) : undefined;
  // Read every head first (asynchronously), then plan from memory.
  const heads = await readHeads(root, files);
  const doc = generatePin(files, (p) => heads.get(p), existing);
  return {
    doc,
    text: writePin(doc),
    existingText,
    source,
    files,
    added: doc.modules.filter((m) => !m.source).length,
    updated: doc.modules.filter((m) => m.source && !sameModule(m)).length,
    stale: stalePinFiles(doc, files),
  };
}

/** What the worker sends back: the RepoPin without its parsed doc's source links (plain data). */
export type PinWorkerMessage = { readonly ok: true; readonly pin: RepoPin } | { readonly ok: false; readonly message: string };

export class PinCancelled extends Error {
  constructor() {
    super('Generating the Pin was cancelled.');
  }
}

/**
 * Runs generateRepoPin in a worker thread (`workerFile`: the bundled src/node/pinWorker.ts), so
 * the caller's event loop stays free. `signal` terminates the worker.
 */
export function generateRepoPinOffThread(workerFile: string, root: string, pinFile: string, signal?: AbortSignal): Promise<RepoPin> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new PinCancelled());
      return;
    }
    const worker = new Worker(workerFile, { workerData: { root, pinFile } });
    let settled = false;
    const finish = (fn: () => void): void => {
      if (!settled) {
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        fn();
      }
    };
    const onAbort = (): void => {
      void worker.terminate();
      finish(() => reject(new PinCancelled()));
    };
    signal?.addEventListener('abort', onAbort);
    worker.once('message', (m: PinWorkerMessage) => {
      finish(() => (m.ok ? resolve(m.pin) : reject(new Error(m.message))));
      void worker.terminate();
    });
    worker.once('error', (e) => finish(() => reject(e)));
    worker.once('exit', (code) => finish(() => reject(new Error(`the Pin worker stopped (exit code ${code}) before it answered.`))));
  });
}
