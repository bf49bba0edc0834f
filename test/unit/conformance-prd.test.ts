/**
 * Conformance over real users' prd.json files (issue 9): ../shared/fixtures/real/prd, copied
 * unchanged from public repositories (SOURCES.md there). For every file, the core and the CLI
 * (dist/cli.js, built by `npm test` before this tier) must not crash, must agree with the small,
 * independent reference below on the next story and the ready list (dependency aliases included),
 * and every file that is valid JSON with a list of stories must show its stories; the others get
 * located messages. Prints one summary line. Without the corpus (a user's clone) the suite is pending.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { analyzePrd, type PrdAnalysis } from '../../src/core/prd/index';
import { copyBuiltCli } from './helpers';

const corpus = path.resolve(__dirname, '../../../shared/fixtures/real/prd');

// ---------------------------------------------------------------------------------------------
// The reference: what a careful reader of these files would compute, written without the core.

interface RefStory {
  id: string;
  passes: boolean;
  priority: number;
  deps: string[];
  pos: number;
}

const PASSING = ['done', 'complete', 'completed', 'passed', 'pass', 'closed', 'resolved'];
const WORDS: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3 };

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The story lists of a parsed file, or undefined when it has none. */
function refLists(data: unknown): unknown[][] | undefined {
  if (Array.isArray(data)) {
    return [data];
  }
  if (!isObj(data)) {
    return undefined;
  }
  const listOf = (o: Record<string, unknown>): unknown[] | undefined => {
    for (const k of ['userStories', 'stories', 'tasks', 'items']) {
      if (Array.isArray(o[k])) {
        return o[k] as unknown[];
      }
    }
    return undefined;
  };
  const own = listOf(data);
  if (own) {
    return [own];
  }
  if (isObj(data.prd) && listOf(data.prd)) {
    return [listOf(data.prd)!];
  }
  if (Array.isArray(data.phases)) {
    const lists = data.phases.filter(isObj).map(listOf).filter((l): l is unknown[] => l !== undefined);
    return lists.length > 0 ? lists : undefined;
  }
  return undefined;
}

function refStories(lists: unknown[][]): RefStory[] {
  const out: RefStory[] = [];
  let pos = 0;
  for (const list of lists) {
    for (const s of list) {
      pos++;
      if (!isObj(s)) {
        continue;
      }
      const rawId = s.id;
      const id = typeof rawId === 'string' && rawId.trim() !== '' ? rawId.trim() : typeof rawId === 'number' ? String(rawId) : `#${pos}`;
      const passes = typeof s.passes === 'boolean' ? s.passes : typeof s.status === 'string' && PASSING.includes(s.status.trim().toLowerCase());
      let priority = Number.POSITIVE_INFINITY;
      if (typeof s.priority === 'number') {
        priority = s.priority;
      } else if (typeof s.priority === 'string') {
        const w = s.priority.trim().toLowerCase();
        priority = w in WORDS ? WORDS[w] : /^p\d+$/.test(w) ? Number(w.slice(1)) : Number.isFinite(Number(w)) && w !== '' ? Number(w) : Number.POSITIVE_INFINITY;
      }
      const deps: string[] = [];
      for (const k of ['blockedBy', 'dependsOn', 'dependencies', 'depends_on']) {
        if (Array.isArray(s[k])) {
          for (const d of s[k] as unknown[]) {
            if ((typeof d === 'string' && d.trim() !== '') || typeof d === 'number') {
              deps.push(String(d).trim());
            }
          }
        }
      }
      out.push({ id, passes, priority, deps, pos });
    }
  }
  return out;
}

function refReady(stories: RefStory[]): string[] {
  const passing = new Set(stories.filter((s) => s.passes).map((s) => s.id));
  return stories
    .filter((s) => !s.passes && s.deps.every((d) => passing.has(d)))
    .sort((a, b) => a.priority - b.priority || a.pos - b.pos)
    .map((s) => s.id);
}

// ---------------------------------------------------------------------------------------------

function parseJson(bytes: Buffer): unknown {
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) {
    text = text.slice(1);
  }
  return JSON.parse(text);
}

/** The counts this corpus gives (84 files): recorded so a change in what is accepted shows up. */
const EXPECTED = { files: 84, shown: 78, accepted: 51, warned: 27, rejected: 6 };

describe('conformance: real prd.json files (../shared/fixtures/real/prd)', function () {
  if (!existsSync(corpus)) {
    it(`skipped: ${corpus} does not exist (the corpus of real files is in CI, not in a clone)`);
    return;
  }
  this.timeout(180_000);
  const files = readdirSync(corpus).filter((f) => f.endsWith('.json')).sort();
  const built = path.resolve(__dirname, '../../dist/cli.js');
  let dir = '';
  let cliPath = '';

  before(() => {
    assert.ok(existsSync(built), 'dist/cli.js is missing: run `npm run build` (npm test builds before the unit tier)');
    dir = mkdtempSync(path.join(tmpdir(), 'ralph-conformance-'));
    cliPath = copyBuiltCli(dir);
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  /** validate and ready of every file, run by dist/cli.js's runCli in one child process. */
  let driverRuns = new Map<string, Record<'validate' | 'ready', { status: number | null; stdout: string; stderr: string }>>();
  before(() => {
    const driver = `
      const { runCli } = require(${JSON.stringify(cliPath)});
      const fs = require('fs');
      const out = {};
      for (const file of JSON.parse(process.argv[1])) {
        out[file] = {};
        for (const command of ['validate', 'ready']) {
          let stdout = '', stderr = '';
          const status = runCli([command, '--json', '--prd', file], { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), readFile: (p) => fs.readFileSync(p) });
          out[file][command] = { status, stdout, stderr };
        }
      }
      process.stdout.write(JSON.stringify(out));`;
    const r = spawnSync(process.execPath, ['-e', driver, JSON.stringify(files.map((f) => path.join(corpus, f)))], { encoding: 'utf8', maxBuffer: 256 << 20 });
    assert.equal(r.status, 0, `the CLI driver failed: ${r.stderr.slice(0, 1000)}`);
    const byPath = JSON.parse(r.stdout) as Record<string, Record<'validate' | 'ready', { status: number | null; stdout: string; stderr: string }>>;
    driverRuns = new Map(files.map((f) => [f, byPath[path.join(corpus, f)]]));
  });

  it('core and CLI: no crash, next/ready agree with the reference, every story list shown, the rest located', () => {
    const counts = { files: files.length, shown: 0, accepted: 0, warned: 0, rejected: 0, agree: 0 };
    for (const f of files) {
      const file = path.join(corpus, f);
      const bytes = readFileSync(file);
      let a: PrdAnalysis;
      try {
        a = analyzePrd(bytes, { fileName: f });
      } catch (e) {
        assert.fail(`${f}: the core threw ${(e as Error).stack}`);
      }
      const text = a.doc.text;
      for (const p of a.problems) {
        assert.ok(p.range.offset >= 0 && p.range.offset + p.range.length <= text.length, `${f}: ${p.code} outside the file`);
      }
      let data: unknown;
      let json = true;
      try {
        data = parseJson(bytes);
      } catch {
        json = false;
      }
      const lists = json ? refLists(data) : undefined;
      const shown = a.doc.hasStories && a.readable;
      if (lists) {
        assert.ok(shown, `${f}: valid JSON with a story list must show its stories: ${a.problems.filter((p) => p.severity === 'error').map((p) => p.message).join(' | ')}`);
        counts.shown++;
      } else {
        assert.ok(a.problems.some((p) => p.severity === 'error'), `${f}: no story list, but no error says so`);
      }
      if (!a.readable) {
        counts.rejected++;
      } else if (a.problems.length === 0) {
        counts.accepted++;
      } else {
        counts.warned++;
      }

      // `next` as a whole process (what ralph.sh runs); validate and ready through the same bundle in one driver process.
      const next = spawnSync(process.execPath, [cliPath, 'next', '--json', '--prd', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
      const { validate, ready } = driverRuns.get(f)!;
      for (const [name, r] of [['validate', validate], ['next', next], ['ready', ready]] as const) {
        assert.ok(r.status !== null && r.status <= 2, `${f}: ${name} crashed (${r.status}): ${r.stderr.slice(0, 500)}`);
        assert.doesNotThrow(() => JSON.parse(r.stdout), `${f}: ${name} --json printed no JSON`);
      }
      const v = JSON.parse(validate.stdout) as { problems: { severity: string }[] };
      assert.equal(v.problems.length, a.problems.length, `${f}: CLI and core count different problems`);
      assert.equal(validate.status, a.errors > 0 ? 1 : 0, `${f}: validate exit code`);

      if (lists && a.readable) {
        const expected = refReady(refStories(lists));
        assert.deepEqual(a.readiness.ready.map((s) => s.story.id), expected, `${f}: core ready list`);
        const n = JSON.parse(next.stdout) as { state: string; next: { id: string } | null };
        assert.equal(n.next?.id ?? null, expected[0] ?? null, `${f}: CLI next`);
        assert.equal(a.readiness.next?.story.id ?? null, expected[0] ?? null, `${f}: core next`);
        const rd = JSON.parse(ready.stdout) as { ready: { id: string }[] };
        assert.deepEqual(rd.ready.map((s) => s.id), expected, `${f}: CLI ready`);
        counts.agree++;
      } else {
        assert.equal(next.status, 1, `${f}: next on an unreadable file exits 1`);
      }
    }
    console.log(
      `      conformance prd: ${counts.files} files: ${counts.shown} show their stories; ${counts.accepted} accepted, ${counts.warned} with warnings (or dependency errors), ${counts.rejected} rejected with located errors; next/ready agree with the reference on ${counts.agree}`,
    );
    if (files.length === EXPECTED.files) {
      assert.deepEqual({ files: counts.files, shown: counts.shown, accepted: counts.accepted, warned: counts.warned, rejected: counts.rejected }, EXPECTED);
    }
  });
});
