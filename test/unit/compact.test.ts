/**
 * progress.txt compaction: examples, fast-check properties (verbatim header / patterns / kept
 * entries, no learning lost, idempotence, under-threshold no-op) and the `compact` CLI command.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { planCompaction } from '../../src/core/progress/compact';
import { parseProgress, splitLines } from '../../src/core/progress/parse';
import { cliAsync, type CliRun } from './helpers';

const demo = readFileSync(path.join(__dirname, '../../examples/demo/progress.txt'), 'utf8');
const now = new Date(2026, 10, 19, 9, 5, 7);
const RUNS = { numRuns: 120 };

function offsetOfLine(text: string, line: number): number {
  const { starts } = splitLines(text);
  return line < starts.length ? starts[line] : text.length;
}

// ---------------------------------------------------------------------------------------------
// Random progress files

const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'cache', 'query', 'zod', 'react', 'sql', 'tests', 'route', 'index', '`npm test`', 'x=1');
const sentence = fc.array(word, { minLength: 1, maxLength: 7 }).map((ws) => ws.join(' '));
const fileName = fc.constantFrom('src/a.ts', 'src/b.ts', 'db/m.sql', 'src/web/c.tsx', 'README.md', 'vitest.config.ts');

interface EntrySpec {
  id: string;
  day: number;
  hour: number;
  thread: boolean;
  summary: string[];
  files: string[];
  filesAsList: boolean;
  learnings: string[];
  bulletHeading: boolean;
  separator: boolean;
}

const entryArb: fc.Arbitrary<EntrySpec> = fc.record({
  id: fc.constantFrom('US-001', 'US-002', 'US-003', 'US-010', 'GH-7', 'misc-1'),
  day: fc.integer({ min: 1, max: 28 }),
  hour: fc.integer({ min: 0, max: 23 }),
  thread: fc.boolean(),
  summary: fc.array(sentence, { maxLength: 4 }),
  files: fc.uniqueArray(fileName, { maxLength: 4 }),
  filesAsList: fc.boolean(),
  learnings: fc.array(sentence, { maxLength: 5 }),
  bulletHeading: fc.boolean(),
  separator: fc.boolean(),
});

interface FileSpec {
  header: boolean;
  patterns: string[] | null;
  entries: EntrySpec[];
  crlf: boolean;
  finalEol: boolean;
}

const fileArb: fc.Arbitrary<FileSpec> = fc.record({
  header: fc.boolean(),
  patterns: fc.option(fc.array(sentence, { maxLength: 6 }), { nil: null }),
  entries: fc.array(entryArb, { maxLength: 40 }),
  crlf: fc.boolean(),
  finalEol: fc.boolean(),
});

function render(f: FileSpec): string {
  const out: string[] = [];
  if (f.header) {
    out.push('# Ralph Progress Log', 'Started: 2026-01-01 09:00:00', '---', '');
  }
  if (f.patterns) {
    out.push('## Codebase Patterns', ...f.patterns.map((p) => `- ${p}`), '', '---', '');
  }
  for (const e of f.entries) {
    out.push(`## 2026-01-${String(e.day).padStart(2, '0')} ${String(e.hour).padStart(2, '0')}:00 - ${e.id}`);
    if (e.thread) {
      out.push(`Thread: https://ampcode.com/threads/T-${e.day}${e.hour}`);
    }
    out.push(...e.summary.map((s) => `- ${s}`));
    if (e.files.length > 0) {
      if (e.filesAsList) {
        out.push('Files changed:', ...e.files.map((x) => `- ${x}`));
      } else {
        out.push(`- Files changed: ${e.files.join(', ')}`);
      }
    }
    if (e.learnings.length > 0) {
      if (e.bulletHeading) {
        out.push('- **Learnings for future iterations:**', ...e.learnings.map((l) => `  - ${l}`));
      } else {
        out.push('**Learnings for future iterations:**', ...e.learnings.map((l) => `- ${l}`));
      }
    }
    if (e.separator) {
      out.push('---');
    }
    out.push('');
  }
  const eol = f.crlf ? '\r\n' : '\n';
  const text = out.join(eol);
  return f.finalEol ? text : text.replace(/(?:\r\n|\n)+$/, '');
}

const optionsArb = fc.record({ threshold: fc.integer({ min: 0, max: 120 }), keep: fc.integer({ min: 0, max: 80 }) });

describe('progress.txt compaction', () => {
  describe('examples', () => {
    it('leaves a file under the threshold unchanged', () => {
      const plan = planCompaction(demo, { now });
      assert.equal(plan.changed, false);
      assert.equal(plan.text, demo);
      assert.match(plan.reason, /80 lines, not over the threshold of 400/);
    });

    it('summarises the older demo entries per story and keeps the newest verbatim', () => {
      const plan = planCompaction(demo, { threshold: 50, keepRecentLines: 30, now });
      assert.equal(plan.changed, true);
      assert.deepEqual(plan.stories, ['US-001', 'US-002', 'US-003']);
      assert.equal(plan.entriesSummarised, 3);
      assert.equal(plan.entriesKept, 2);
      assert.equal(plan.linesBefore, 80);
      assert.equal(plan.linesAfter, splitLines(plan.text).lines.length);
      const doc = parseProgress(plan.text);
      assert.equal(doc.compacted?.entriesSummarised, 3);
      assert.deepEqual(
        doc.compacted?.stories.map((s) => [s.storyId, s.iterations, s.learnings.length, s.files.length]),
        [
          ['US-001', 1, 4, 3],
          ['US-002', 1, 4, 4],
          ['US-003', 1, 4, 2],
        ],
      );
      assert.ok(plan.text.includes('### US-001\n- Iterations: 1 (2026-11-18 14:02)\n- Files changed: db/migrations/004_add_task_priority.sql, src/shared/priority.ts, src/shared/task.ts\n'));
      const firstKept = demo.indexOf('## 2026-11-18 16:05 - US-004');
      assert.ok(plan.text.endsWith(demo.slice(firstKept)));
      assert.ok(plan.text.startsWith(demo.slice(0, demo.indexOf('## 2026-11-18 14:02'))));
    });

    it('merges an existing Compacted history instead of nesting it, removing duplicate learnings', () => {
      const first = planCompaction(demo, { threshold: 50, keepRecentLines: 30, now }).text;
      const more =
        first +
        '\n## 2026-11-19 10:00 - US-005\n- did\n- Files changed: src/x.ts\n- **Learnings for future iterations:**\n  - new learning\n' +
        '  - The dialog keeps a local copy of the task; close it only after `mutateAsync` resolves or errors are lost\n---\n';
      const plan = planCompaction(more, { threshold: 50, keepRecentLines: 10, now });
      assert.equal(plan.changed, true);
      assert.equal(plan.text.match(/Compacted history/g)?.length, 1);
      const doc = parseProgress(plan.text);
      assert.equal(doc.compacted?.entriesSummarised, 5);
      const us4 = doc.compacted!.stories.find((s) => s.storyId === 'US-004')!;
      assert.equal(us4.iterations, 2);
      assert.equal(us4.firstDate, '2026-11-18 16:05');
      assert.equal(us4.lastDate, '2026-11-18 16:48');
      assert.equal(us4.learnings.length, 5);
      assert.deepEqual(
        doc.compacted!.stories.map((s) => s.storyId),
        ['US-001', 'US-002', 'US-003', 'US-004'],
      );
      assert.equal(doc.entries.length, 1);
      assert.equal(doc.entries[0].storyId, 'US-005');
    });

    it('keeps the file line ends in the summary', () => {
      const crlf = demo.replace(/\n/g, '\r\n');
      const plan = planCompaction(crlf, { threshold: 50, keepRecentLines: 30, now });
      assert.ok(!/[^\r]\n/.test(plan.text));
    });

    it('summarises every entry with keepRecentLines 0 and keeps at least the newest one otherwise', () => {
      const all = planCompaction(demo, { threshold: 10, keepRecentLines: 0, now });
      assert.equal(all.entriesSummarised, 5);
      assert.equal(parseProgress(all.text).entries.length, 0);
      const one = planCompaction(demo, { threshold: 10, keepRecentLines: 1, now });
      assert.equal(one.entriesKept, 1);
    });

    it('keeps sections that are not entries, and says why nothing changes', () => {
      const t = `${demo}\n## Notes\nsome note\n`;
      const withNotesInside = t.replace('## 2026-11-18 14:37', '## Notes from a human\nkeep me\n\n## 2026-11-18 14:37');
      const plan = planCompaction(withNotesInside, { threshold: 50, keepRecentLines: 30, now });
      assert.ok(plan.text.includes('## Notes from a human\nkeep me\n'));
      assert.ok(plan.text.endsWith('## Notes\nsome note\n'));
      assert.match(planCompaction('', { threshold: 0 }).reason, /empty/);
      assert.match(planCompaction('a\u0000b\n'.repeat(10), { threshold: 0 }).reason, /does not look like text/);
      assert.match(planCompaction('# Log\n'.repeat(10), { threshold: 3 }).reason, /no iteration entries/);
    });
  });

  describe('properties', () => {
    it('keeps the header and the Codebase Patterns section byte-identical', () => {
      fc.assert(
        fc.property(fileArb, optionsArb, (f, o) => {
          const text = render(f);
          const plan = planCompaction(text, { threshold: o.threshold, keepRecentLines: o.keep, now });
          const doc = parseProgress(text);
          const first = doc.sections.find((s) => s.kind === 'entry' || s.kind === 'compacted');
          const prefixEnd = first ? offsetOfLine(text, first.line) : text.length;
          assert.ok(plan.text.startsWith(text.slice(0, prefixEnd)));
          if (doc.patterns) {
            const p = text.slice(offsetOfLine(text, doc.patterns.line), offsetOfLine(text, doc.patterns.endLine));
            assert.ok(plan.text.includes(p));
            assert.deepEqual(
              parseProgress(plan.text).patterns?.items.map((i) => i.text),
              doc.patterns.items.map((i) => i.text),
            );
          }
        }),
        RUNS,
      );
    });

    it('keeps every learning of a summarised entry, under its story, and the newest entries byte-identical', () => {
      fc.assert(
        fc.property(fileArb, optionsArb, (f, o) => {
          const text = render(f);
          const plan = planCompaction(text, { threshold: o.threshold, keepRecentLines: o.keep, now });
          if (!plan.changed) {
            assert.equal(plan.text, text);
            return;
          }
          const before = parseProgress(text);
          const after = parseProgress(plan.text);
          const kept = before.entries.slice(before.entries.length - plan.entriesKept);
          const summarised = before.entries.slice(0, before.entries.length - plan.entriesKept);
          assert.equal(summarised.length, plan.entriesSummarised);
          if (kept.length > 0) {
            const tail = text.slice(offsetOfLine(text, kept[0].line));
            assert.ok(plan.text.endsWith(tail), 'the kept entries are verbatim');
          }
          assert.equal(after.entries.length, kept.length);
          const stories = new Map(after.compacted!.stories.map((s) => [s.storyId, s]));
          for (const e of summarised) {
            const st = stories.get(e.storyId ?? '(no story id)');
            assert.ok(st, `story ${e.storyId} is in the summary`);
            const texts = new Set(st.learnings.map((l) => l.text));
            for (const l of e.learnings) {
              assert.ok(texts.has(l.text), `learning "${l.text}" of ${e.storyId} is kept`);
            }
            for (const file of e.files) {
              assert.ok(st.files.includes(file), `file ${file} of ${e.storyId} is kept`);
            }
          }
          // Exact duplicates are removed.
          for (const st of after.compacted!.stories) {
            assert.equal(new Set(st.learnings.map((l) => l.text)).size, st.learnings.length);
          }
        }),
        RUNS,
      );
    });

    it('merges the compacted history when compacting again after new entries: nothing lost, never nested', () => {
      fc.assert(
        fc.property(fileArb, fc.array(entryArb, { minLength: 1, maxLength: 10 }), optionsArb, (f, more, o) => {
          const once = planCompaction(render({ ...f, crlf: false, finalEol: true }), { threshold: o.threshold, keepRecentLines: o.keep, now });
          const grown = once.text + render({ header: false, patterns: null, entries: more, crlf: false, finalEol: true });
          const twice = planCompaction(grown, { threshold: 0, keepRecentLines: o.keep, now });
          const before = parseProgress(grown);
          const after = parseProgress(twice.text);
          assert.ok((twice.text.match(/^#+ Compacted history/gm) ?? []).length <= 1);
          const stories = new Map((after.compacted?.stories ?? []).map((s) => [s.storyId, s]));
          for (const st of before.compacted?.stories ?? []) {
            const now2 = stories.get(st.storyId);
            assert.ok(now2, `story ${st.storyId} stays in the summary`);
            const texts = new Set(now2.learnings.map((l) => l.text));
            for (const l of st.learnings) {
              assert.ok(texts.has(l.text));
            }
            assert.equal(now2.iterations, (st.iterations ?? 0) + before.entries.filter((e) => (e.storyId ?? '(no story id)') === st.storyId).length - after.entries.filter((e) => (e.storyId ?? '(no story id)') === st.storyId).length);
          }
        }),
        RUNS,
      );
    });

    it('leaves a file under the threshold unchanged', () => {
      fc.assert(
        fc.property(fileArb, (f) => {
          const text = render(f);
          const n = splitLines(text).lines.length;
          const plan = planCompaction(text, { threshold: n, now });
          assert.equal(plan.changed, false);
          assert.equal(plan.text, text);
        }),
        RUNS,
      );
    });

    it('changes nothing more when compacting the result again', () => {
      fc.assert(
        fc.property(fileArb, optionsArb, (f, o) => {
          const text = render(f);
          const once = planCompaction(text, { threshold: o.threshold, keepRecentLines: o.keep, now });
          const twice = planCompaction(once.text, { threshold: o.threshold, keepRecentLines: o.keep, now: new Date(2027, 0, 1) });
          assert.equal(twice.changed, false, twice.reason);
          assert.equal(twice.text, once.text);
        }),
        RUNS,
      );
    });
  });
});

describe('CLI compact', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ralph-compact-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (argv: string[]): Promise<CliRun> => cliAsync(argv, 'disk');

  it('saves the original byte-identical, writes the compacted file and logs the action', async () => {
    const file = path.join(dir, 'progress.txt');
    writeFileSync(file, demo);
    const r = await run(['compact', '--file', file, '--threshold', '50', '--keep', '30']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /compacted/);
    const archives = readdirSync(path.join(dir, '.ralph', 'archive'));
    assert.equal(archives.length, 1);
    assert.match(archives[0], /^progress-\d{4}-\d{2}-\d{2}T[\d-]+Z\.txt$/);
    assert.equal(readFileSync(path.join(dir, '.ralph', 'archive', archives[0]), 'utf8'), demo);
    const now = readFileSync(file, 'utf8');
    assert.ok(now.includes('## Compacted history'));
    const log = readFileSync(path.join(dir, '.ralph', 'compaction.log'), 'utf8');
    // The saved original is the replaced file itself (a hard link), all of whose bytes were carried.
    assert.equal(Number(/\(linked, (\d+) bytes carried\)/.exec(log)?.[1]), Buffer.byteLength(demo));
    assert.match(log, /^\d{4}-\d{2}-\d{2}T\S+Z \S*progress\.txt: 80 → 69 lines, 3 entries summarised \(US-001, US-002, US-003\), original saved to \.ralph\/archive\/progress-.*\.txt \(linked, \d+ bytes carried\), result sha256 [0-9a-f]{64}\n$/);
    // No temp file left behind; a second run changes nothing.
    assert.deepEqual(
      readdirSync(dir).sort(),
      ['.ralph', 'progress.txt'],
    );
    const again = await run(['compact', '--file', file, '--threshold', '50', '--keep', '30', '--json']);
    assert.equal(again.code, 0);
    assert.equal(JSON.parse(again.stdout).changed, false);
    assert.equal(readFileSync(file, 'utf8'), now);
  });

  it('only reports with --dry-run, with a diff summary', async () => {
    const file = path.join(dir, 'progress.txt');
    writeFileSync(file, demo);
    const r = await run(['compact', '--file', file, '--threshold', '50', '--keep', '30', '--dry-run']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /would compact/);
    assert.match(r.stdout, /lines: 80 → 69/);
    assert.match(r.stdout, /entries summarised: 3/);
    assert.match(r.stdout, /^@@ -15,42 \+15,31 @@$/m);
    assert.match(r.stdout, /^\+## Compacted history$/m);
    assert.equal(readFileSync(file, 'utf8'), demo);
    assert.equal(existsSync(path.join(dir, '.ralph')), false);
  });

  it('says when the file stays over the threshold, and what to change (issue 18 item 9)', async () => {
    const file = path.join(dir, 'progress.txt');
    writeFileSync(file, demo);
    // 80 lines, threshold 50: keeping the newest ~30 lines leaves 69.
    const dry = await run(['compact', '--file', file, '--threshold', '50', '--keep', '30', '--dry-run']);
    assert.match(dry.stdout, /69 lines remain, over the threshold of 50: the newest \d+ entr(y is|ies are) kept word for word \(about 30 lines, --keep\)\. To compact further, lower --keep; or raise --threshold/);
    const json = JSON.parse((await run(['compact', '--file', file, '--threshold', '50', '--keep', '30', '--dry-run', '--json'])).stdout) as { stillOver: string | null };
    assert.match(json.stillOver ?? '', /over the threshold of 50/);
    // Nothing older than the kept lines: the same advice, not only "nothing to summarise".
    const none = await run(['compact', '--file', file, '--threshold', '50', '--keep', '100']);
    assert.match(none.stdout, /nothing older to summarise\.\n {2}80 lines remain, over the threshold of 50/);
    // Under the threshold afterwards: no advice.
    const under = await run(['compact', '--file', file, '--threshold', '75', '--keep', '10', '--dry-run', '--json']);
    assert.equal((JSON.parse(under.stdout) as { stillOver: string | null }).stillOver, null);
    const plan = planCompaction(demo, { threshold: 75, keepRecentLines: 10, now });
    assert.equal(plan.changed, true);
    assert.equal(plan.stillOver, undefined);
    assert.equal(readFileSync(file, 'utf8'), demo);
  });

  it('refuses binary files and bad numbers, and explains a missing file', async () => {
    writeFileSync(path.join(dir, 'bin.txt'), Buffer.from([0, 1, 2, 0xff]));
    const bin = await run(['compact', '--file', path.join(dir, 'bin.txt'), '--threshold', '0']);
    assert.equal(bin.code, 1);
    assert.match(bin.stderr, /does not look like a text file/);
    assert.match((await run(['compact', '--file', path.join(dir, 'none.txt')])).stderr, /no such file/);
    assert.match((await run(['compact', '--threshold', 'many'])).stderr, /whole number/);
  });
});
