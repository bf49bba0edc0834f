/**
 * Compaction while another process appends to progress.txt: one trial starts a real writer (bash),
 * compacts the file while it writes, stops it, carries what it wrote late (reconcile, as before the
 * next iteration), and counts the writer's lines in the result.
 * Used by test/unit/compaction-concurrency.test.ts and by `npm run bench` (scripts/bench-memory.mjs).
 *
 * Writers:
 *  - `append`: open, append one line, close, in a loop (`echo … >> progress.txt`, what most agents do);
 *  - `held`: one descriptor held open for the whole run (`exec 3>> progress.txt`, like `tee -a`).
 */
import { spawn } from 'node:child_process';
import { readFile, stat, writeFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { CompactionPlan } from '../../src/core/progress/compact';
import { planCompaction } from '../../src/core/progress/compact';
import { reconcileCompaction } from '../../src/node/compactionReconcile';

export type WriterKind = 'append' | 'held';

export interface TrialResult {
  readonly kind: WriterKind;
  /** Lines the writer wrote. */
  readonly written: number;
  /** Of those, lines found in progress.txt afterwards. */
  readonly found: number;
  readonly lost: number;
  readonly duplicated: number;
  /** Whether progress.txt was compacted (else compaction refused, with `refused`). */
  readonly compacted: boolean;
  readonly refused?: string;
  /** When compacted: whether the file starts with the compacted text. */
  readonly prefixOk: boolean;
  /** Bytes the writer appended to the replaced file after compaction returned, carried by reconcile. */
  readonly lateBytes: number;
}

const WRITER = `
F="$1"; STOP="$2"; TAG="$3"; KIND="$4"; i=0
if [ "$KIND" = held ]; then
  exec 3>>"$F"
  while [ ! -e "$STOP" ]; do echo "$TAG $i line appended by a held writer" >&3; i=$((i+1)); done
  exec 3>&-
else
  while [ ! -e "$STOP" ]; do echo "$TAG $i line appended by an agent" >> "$F"; i=$((i+1)); done
fi
echo "$i"
`;

/** A progress.txt of about `lines` lines: header, patterns and dated entries with learnings. */
export function progressFixture(lines = 300): string {
  const out = ['# Ralph Progress Log', 'Started: 2026-01-01', '---', '', '## Codebase Patterns', '- Use the one resolver for paths', '', '---', ''];
  for (let i = 1; out.length < lines; i++) {
    out.push(
      `## 2026-01-${String((i % 28) + 1).padStart(2, '0')} 10:00 - US-${String(i).padStart(3, '0')}`,
      `- Implemented part ${i}`,
      `- Files changed: src/a${i}.ts, src/b${i}.ts`,
      '- **Learnings for future iterations:**',
      `  - Learning ${i} about the handler`,
      '---',
      '',
    );
  }
  return `${out.join('\n')}\n`;
}

type Apply = (file: string, original: Uint8Array, plan: CompactionPlan, now: Date) => unknown;

async function until(condition: () => Promise<boolean>, deadlineMs: number, what: string): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setImmediate(r));
  }
}

/** One interleaving: `delayMs` after the writer's first line, compaction runs. */
export async function compactionTrial(dir: string, kind: WriterKind, delayMs: number, apply: Apply): Promise<TrialResult> {
  const file = path.join(dir, 'progress.txt');
  const stopFile = path.join(dir, 'stop');
  const script = path.join(dir, 'writer.sh');
  await rm(path.join(dir, '.ralph'), { recursive: true, force: true });
  await rm(stopFile, { force: true });
  const base = progressFixture();
  await writeFile(file, base);
  await writeFile(script, WRITER);
  const tag = `W${kind}`;
  const writer = spawn('bash', [script, file, stopFile, tag, kind], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  writer.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((r) => writer.on('close', r));
  let compacted = false;
  let refused: string | undefined;
  let plan: CompactionPlan | undefined;
  try {
    await until(async () => (await stat(file)).size > base.length, 10_000, 'the writer to start');
    if (delayMs > 0) {
      await new Promise((r) => setTimeout(r, delayMs));
    }
    const bytes = await readFile(file);
    plan = planCompaction(bytes.toString('utf8'), { threshold: 100, keepRecentLines: 40, now: new Date(2026, 0, 2) });
    try {
      await apply(file, bytes, plan, new Date());
      compacted = true;
    } catch (e) {
      refused = (e as Error).message;
    }
  } finally {
    await writeFile(stopFile, '');
  }
  await exited;
  // What the extension does before the next iteration: lines of a writer stalled past the
  // compaction's follow window are in the saved original (the replaced file), carried now.
  const lateBytes = compacted ? (await reconcileCompaction(file, new Date())).carriedBytes : 0;
  const written = Number(out.trim());
  const text = await readFile(file, 'utf8');
  const seen = new Set<number>();
  let matches = 0;
  const re = new RegExp(`^${tag} (\\d+) line appended`, 'gm');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    matches++;
    seen.add(Number(m[1]));
  }
  let found = 0;
  for (let k = 0; k < written; k++) {
    if (seen.has(k)) {
      found++;
    }
  }
  return {
    kind,
    written,
    found,
    lost: written - found,
    duplicated: matches - seen.size,
    compacted,
    refused,
    prefixOk: !compacted || (plan !== undefined && text.startsWith(plan.text)),
    lateBytes,
  };
}

export interface TrialSummary {
  readonly trials: number;
  readonly written: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly compacted: number;
  readonly refused: number;
  readonly badPrefix: number;
  readonly refusals: string[];
  /** Trials in which reconcile carried late bytes (a writer stalled past the follow window). */
  readonly late: number;
}

export async function runTrials(dir: string, kind: WriterKind, trials: number, apply: Apply): Promise<TrialSummary> {
  let written = 0;
  let lost = 0;
  let duplicated = 0;
  let compacted = 0;
  let badPrefix = 0;
  let late = 0;
  const refusals: string[] = [];
  for (let t = 0; t < trials; t++) {
    const r = await compactionTrial(dir, kind, t % 7, apply);
    written += r.written;
    lost += r.lost;
    duplicated += r.duplicated;
    compacted += r.compacted ? 1 : 0;
    badPrefix += r.prefixOk ? 0 : 1;
    late += r.lateBytes > 0 ? 1 : 0;
    if (r.refused) {
      refusals.push(r.refused);
    }
  }
  return { trials, written, lost, duplicated, compacted, refused: refusals.length, badPrefix, refusals, late };
}
