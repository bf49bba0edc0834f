/**
 * A writer that opened progress.txt before compaction replaced it, and was stalled (a loaded
 * machine) until after compaction stopped following the old file, loses no line: the old file is
 * kept as the saved original (a hard link), and `reconcileCompaction` carries what it gained.
 * The stall is simulated exactly: the descriptor is opened before applyCompaction, written after it
 * returned (this process's own descriptor is never listed by the holder scan).
 */
import assert from 'node:assert/strict';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { planCompaction } from '../../src/core/progress/compact';
import { type ApplyOptions, applyCompaction, undoLastCompaction } from '../../src/node/compaction';
import { reconcileCompaction } from '../../src/node/compactionReconcile';
import { progressFixture } from './concurrentWriters';
import { cliAsync } from './helpers';

/** Short waits: nothing else writes here, so the follow window only slows the test down. */
const FAST: ApplyOptions = { graceMs: 10, settleMs: 500 };
const now = new Date(2026, 1, 3, 4, 5, 6);
const LATE = '## 2026-02-02 10:00 - US-998\n- written late by a stalled writer\n';

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe('compaction and a writer stalled past the follow window', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  let text: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ralph-late-'));
    file = path.join(dir, 'progress.txt');
    text = progressFixture();
    writeFileSync(file, text);
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** Compacts `file` while a descriptor opened before stays unwritten until compaction returned. */
  async function compactWithStalledWriter(options: ApplyOptions = FAST): Promise<{ archive: string; warning?: string; write: (s: string) => void; close: () => void }> {
    const plan = planCompaction(text, { threshold: 100, keepRecentLines: 40, now });
    const stalled = openSync(file, 'a');
    const done = await applyCompaction(file, readFileSync(file), plan, now, options);
    assert.notEqual(readFileSync(file, 'utf8'), text, 'compacted');
    return { archive: done.archive, warning: done.warning, write: (s) => writeSync(stalled, s), close: () => closeSync(stalled) };
  }

  it('keeps a late line in the saved original at once, and carries it into progress.txt by reconcile', async () => {
    const c = await compactWithStalledWriter();
    c.write(LATE);
    c.close();
    assert.equal(c.warning, undefined);
    assert.equal(readFileSync(c.archive, 'utf8'), text + LATE, 'the saved original holds the late line');
    const r = await reconcileCompaction(file, now);
    assert.equal(r.carriedBytes, Buffer.byteLength(LATE));
    const after = readFileSync(file, 'utf8');
    assert.ok(after.endsWith(LATE), 'the late line is at the end of progress.txt');
    assert.equal(occurrences(after, LATE), 1);
    const log = readFileSync(path.join(dir, '.ralph', 'compaction.log'), 'utf8');
    assert.match(log, /progress\.txt: 64 bytes written to the replaced file after compaction carried over from \.ralph\/archive\/progress-\S+\.txt/);
  });

  it('carries nothing twice: reconcile again is a no-op, and a second late line is carried once', async () => {
    const c = await compactWithStalledWriter();
    c.write(LATE);
    assert.equal((await reconcileCompaction(file, now)).carriedBytes, Buffer.byteLength(LATE));
    const once = readFileSync(file, 'utf8');
    assert.equal((await reconcileCompaction(file, now)).carriedBytes, 0);
    assert.equal(readFileSync(file, 'utf8'), once, 'a second reconcile changes nothing');
    const second = '- and a second one\n';
    c.write(second);
    c.close();
    await reconcileCompaction(file, now);
    await reconcileCompaction(file, now);
    const after = readFileSync(file, 'utf8');
    assert.equal(after, once + second);
  });

  it('carries a late line before a later compaction replaces the file again', async () => {
    const c = await compactWithStalledWriter();
    c.write(LATE);
    c.close();
    // The next compaction, planned without a reconcile first: the late line must not stay behind
    // in the first saved original, which no later step would look at.
    let current = readFileSync(file, 'utf8');
    for (let i = 0; i < 80; i++) {
      current += `## 2026-03-01 10:00 - US-${500 + i}\n- more work ${i}\n---\n\n`;
    }
    writeFileSync(file, current);
    const plan = planCompaction(current, { threshold: 100, keepRecentLines: 40, now });
    assert.ok(plan.changed);
    await applyCompaction(file, readFileSync(file), plan, now, FAST);
    assert.equal(occurrences(readFileSync(file, 'utf8'), '- written late by a stalled writer\n'), 1);
  });

  it('falls back to a copy where a hard link is refused (EXDEV), and says so', async () => {
    const refused = async (): Promise<void> => {
      throw Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' });
    };
    const c = await compactWithStalledWriter({ ...FAST, link: refused });
    assert.match(c.warning ?? '', /^The original of progress\.txt was copied to \.ralph\/archive\/progress-\S+\.txt \(a hard link was refused: EXDEV\)/);
    assert.equal(readFileSync(c.archive, 'utf8'), text, 'the copy holds the original');
    assert.notEqual(statSync(c.archive).ino, statSync(file).ino);
    c.write(LATE);
    c.close();
    assert.equal(readFileSync(c.archive, 'utf8'), text, 'a copy is not the replaced file');
    assert.equal((await reconcileCompaction(file, now)).carriedBytes, 0, 'nothing to follow in a copy');
    await undoLastCompaction(file, now);
    assert.equal(readFileSync(file, 'utf8'), text, 'undo still restores the copy');
  });

  it('undo after a late line restores the original with the late line, before and after reconcile', async () => {
    const c = await compactWithStalledWriter();
    c.write(LATE);
    await undoLastCompaction(file, now);
    assert.equal(readFileSync(file, 'utf8'), text + LATE, 'undo before reconcile keeps the late line');

    writeFileSync(file, text);
    const d = await compactWithStalledWriter();
    d.write(LATE);
    d.close();
    await reconcileCompaction(file, now);
    await undoLastCompaction(file, now);
    assert.equal(readFileSync(file, 'utf8'), text + LATE, 'undo after reconcile restores it once');
    c.close();
  });

  it('keeps undo refused when progress.txt changed after compaction, even once late lines were carried', async () => {
    const c = await compactWithStalledWriter();
    await appendFile(file, '- an agent appended to the new file\n');
    c.write(LATE);
    c.close();
    await reconcileCompaction(file, now);
    await assert.rejects(undoLastCompaction(file, now), /has changed since it was compacted/);
    assert.ok(readFileSync(file, 'utf8').endsWith(`- an agent appended to the new file\n${LATE}`));
  });

  it('carries late lines into the previous feature\'s archived progress.txt when a new feature restarted it', async () => {
    const c = await compactWithStalledWriter();
    c.write(LATE);
    c.close();
    // A branch change archives progress.txt (archive/<date>-<feature>/) and starts a fresh one.
    const previous = path.join(dir, 'archive', '2026-02-03-old-feature', 'progress.txt');
    mkdirSync(path.dirname(previous), { recursive: true });
    copyFileSync(file, previous);
    const fresh = '# Ralph Progress Log\nStarted: 2026-02-03\n---\n';
    writeFileSync(file, fresh);
    const r = await reconcileCompaction(file, now, { into: previous });
    assert.equal(r.carriedBytes, Buffer.byteLength(LATE));
    assert.ok(readFileSync(previous, 'utf8').endsWith(LATE), 'the late line joins the feature it was written in');
    assert.equal(readFileSync(file, 'utf8'), fresh, 'the new feature\'s progress.txt is untouched');
    assert.equal((await reconcileCompaction(file, now)).carriedBytes, 0, 'carried once');
  });

  it('`ralph-workbench compact` carries late lines even when there is nothing to compact', async () => {
    const c = await compactWithStalledWriter();
    c.write(LATE);
    c.close();
    const r = await cliAsync(['compact', '--file', file, '--threshold', '100000'], 'disk');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Carried 64 bytes written to the replaced .*progress\.txt after the last compaction \(kept in \S*\.ralph\/archive\/progress-\S+\.txt\)\.$/m);
    assert.ok(readFileSync(file, 'utf8').endsWith(LATE));
  });

  it('property: appends before apply, to the path after, and by stalled writers, each end up exactly once after reconcile', async () => {
    const step = fc.record({ stalled: fc.boolean(), reconcile: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 3 }), fc.array(step, { maxLength: 8 }), fc.boolean(), async (tailLines, steps, holdOpen) => {
        rmSync(path.join(dir, '.ralph'), { recursive: true, force: true });
        writeFileSync(file, text);
        const original = readFileSync(file);
        const plan = planCompaction(text, { threshold: 100, keepRecentLines: 40, now });
        const lines: string[] = [];
        const line = (kind: string): string => {
          const l = `- ${kind} line ${lines.length}\n`;
          lines.push(l);
          return l;
        };
        for (let i = 0; i < tailLines; i++) {
          await appendFile(file, line('tail'));
        }
        const stalled = openSync(file, 'a');
        try {
          await applyCompaction(file, original, plan, now, FAST);
          for (const s of steps) {
            if (s.stalled) {
              writeSync(stalled, line('stalled'));
            } else {
              await appendFile(file, line('fresh'));
            }
            if (s.reconcile) {
              await reconcileCompaction(file, now);
            }
          }
        } finally {
          if (!holdOpen) {
            closeSync(stalled);
          }
        }
        await reconcileCompaction(file, now);
        const after = readFileSync(file, 'utf8');
        if (holdOpen) {
          closeSync(stalled);
        }
        assert.ok(after.startsWith(plan.text));
        for (const l of lines) {
          assert.equal(occurrences(after, l), 1, `${JSON.stringify(l)} in ${JSON.stringify(after.slice(plan.text.length))}`);
        }
      }),
      { numRuns: 25 },
    );
  });
});
