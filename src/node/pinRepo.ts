/**
 * Generating the Pin for a repository on disk, shared by the CLI (`pin`) and the extension
 * ("Generate the Pin"): list the files (`git ls-files`, or a folder walk that honours .gitignore),
 * read the head of each source file, and merge with the existing specs/INDEX.md.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { type PinDoc, type PinModule, parsePin, writePin } from '../core/pin/format';
import { generatePin, SKIPPED_FOLDERS, stalePinFiles } from '../core/pin/generate';
import { decodeText } from '../core/progress/parse';

/** Repository files: `git ls-files` (tracked and untracked-but-not-ignored), or undefined when DIR is not in a git repository. */
export function gitFiles(root: string): string[] | undefined {
  const r = spawnSync('git', ['-C', root, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    encoding: 'buffer',
    maxBuffer: 512 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (r.error || r.status !== 0) {
    return undefined;
  }
  return r.stdout.toString('utf8').split('\0').filter((f) => f !== '');
}

/** A walk of DIR that honours .gitignore files (at every level) and skips vendored folders. */
export function walkFiles(root: string): string[] {
  const out: string[] = [];
  const stack: { rel: string; rules: { base: string; ig: Ignore }[] }[] = [{ rel: '', rules: [] }];
  while (stack.length > 0) {
    const { rel, rules } = stack.pop()!;
    const abs = rel === '' ? root : path.join(root, rel);
    let entries;
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      continue;
    }
    let here = rules;
    if (entries.some((e) => e.name === '.gitignore' && e.isFile())) {
      try {
        here = [...rules, { base: rel, ig: ignore().add(readFileSync(path.join(abs, '.gitignore'), 'utf8')) }];
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

/** One read buffer reused for every file: 20,000 files would otherwise allocate hundreds of MB. */
let headBuffer: Buffer | undefined;

/** The first `max` bytes of a file as text (enough for imports and exports), undefined when unreadable. */
export function readHead(file: string, max = 32768): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    if (!headBuffer || headBuffer.length < max) {
      headBuffer = Buffer.allocUnsafe(max);
    }
    const n = readSync(fd, headBuffer, 0, max, 0);
    return headBuffer.toString('utf8', 0, n);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) {
      closeSync(fd);
    }
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

/** Generates the Pin of the repository at `root`, merged with the Pin file at `pinFile` (absolute). */
export function generateRepoPin(root: string, pinFile: string): RepoPin {
  let files = gitFiles(root);
  let source: 'git' | 'walk' = 'git';
  if (files === undefined) {
    source = 'walk';
    files = walkFiles(root);
  }
  let existingText: string | undefined;
  try {
    existingText = decodeText(readFileSync(pinFile));
  } catch {
    existingText = undefined;
  }
  const existing = existingText !== undefined ? parsePin(existingText) : undefined;
  const doc = generatePin(files, (p) => readHead(path.join(root, p)), existing);
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
