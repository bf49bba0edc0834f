/**
 * Compaction while an agent appends to progress.txt (issue 8 item 6): no line is ever lost.
 * Real writer processes (bash); `npm run bench` runs the same trials 500 times per writer kind.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { planCompaction } from '../../src/core/progress/compact';
import { applyCompaction } from '../../src/node/compaction';
import { progressFixture, runTrials } from './concurrentWriters';

const haveBash = process.platform !== 'win32' && spawnSync('bash', ['-c', 'exit 0']).status === 0;

describe('compaction with concurrent writers', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ralph-concurrent-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses no line of a writer that opens, appends and closes (echo >>), and compacts', async function () {
    if (!haveBash) {
      this.skip();
    }
    const s = await runTrials(dir, 'append', 40, (f, o, p, n) => applyCompaction(f, o, p, n));
    assert.ok(s.written > 0);
    assert.equal(s.lost, 0, `${s.lost} of ${s.written} lines lost`);
    assert.equal(s.duplicated, 0);
    assert.equal(s.badPrefix, 0);
    assert.ok(s.compacted >= 30, `compacted only ${s.compacted} of 40 times: ${s.refusals.join(' | ')}`);
  });

  it('refuses, changing nothing, while a process holds progress.txt open (exec 3>>), and loses no line', async function () {
    if (!haveBash || process.platform !== 'linux') {
      this.skip();
    }
    const s = await runTrials(dir, 'held', 5, (f, o, p, n) => applyCompaction(f, o, p, n));
    assert.equal(s.lost, 0, `${s.lost} of ${s.written} lines lost`);
    assert.equal(s.compacted, 0);
    assert.equal(s.refused, 5);
    assert.match(s.refusals[0], /progress\.txt is held open by bash \(pid \d+\), which would keep writing to the replaced file\. Nothing changed/);
  });

  it('always compacts when nobody else writes, keeping the original in the archive', async () => {
    const file = path.join(dir, 'progress.txt');
    const text = progressFixture();
    writeFileSync(file, text);
    const bytes = readFileSync(file);
    const plan = planCompaction(text, { threshold: 100, keepRecentLines: 40 });
    const done = await applyCompaction(file, bytes, plan, new Date());
    assert.equal(readFileSync(file, 'utf8'), plan.text);
    assert.equal(readFileSync(done.archive, 'utf8'), text);
    assert.equal(done.carriedBytes, 0);
    assert.equal(done.warning, undefined);
  });

  it('carries a line from a writer whose open of the old file no scan could see yet, written 120 ms after the replacement', async () => {
    // On a busy machine a writer can be held inside open() (path resolved to the old file, no
    // descriptor in /proc yet) for longer than the grace period. This process's own descriptor
    // stands for it: the holder scan never lists this process.
    const file = path.join(dir, 'progress.txt');
    const text = progressFixture();
    writeFileSync(file, text);
    const plan = planCompaction(text, { threshold: 100, keepRecentLines: 40 });
    const stalled = openSync(file, 'a');
    const inode = statSync(file).ino;
    let late: Promise<void> | undefined;
    const watcher = setInterval(() => {
      if (!late && statSync(file).ino !== inode) {
        clearInterval(watcher);
        late = new Promise((resolve) =>
          setTimeout(() => {
            writeSync(stalled, '## 2026-02-02 - US-998\n- written late by a stalled writer\n');
            closeSync(stalled);
            resolve();
          }, 120),
        );
      }
    }, 1);
    try {
      await applyCompaction(file, readFileSync(file), plan, new Date());
    } finally {
      clearInterval(watcher);
    }
    await late;
    assert.ok(readFileSync(file, 'utf8').endsWith('- written late by a stalled writer\n'), 'the late line is carried into the compacted file');
  });

  it('carries lines appended between planning and writing, and refuses a file that was rewritten', async () => {
    const file = path.join(dir, 'progress.txt');
    const text = progressFixture();
    writeFileSync(file, text);
    const bytes = readFileSync(file);
    const plan = planCompaction(text, { threshold: 100, keepRecentLines: 40 });
    writeFileSync(file, `${text}## 2026-02-01 - US-999\n- appended meanwhile\n`);
    const done = await applyCompaction(file, bytes, plan, new Date());
    assert.equal(readFileSync(file, 'utf8'), `${plan.text}## 2026-02-01 - US-999\n- appended meanwhile\n`);
    assert.ok(done.carriedBytes > 0);
    writeFileSync(file, text.replace('Learning 1 ', 'Learning one '));
    await assert.rejects(applyCompaction(file, readFileSync(file).subarray(0, 10).fill(65), plan, new Date()), /changed while it was being compacted \(not only appended to\); nothing changed/);
  });
});

describe('compaction and readers', function () {
  this.timeout(60_000);
  it('compacts while a process only reads progress.txt (tail -f): a reader loses nothing', async function () {
    if (process.platform !== 'linux' || spawnSync('bash', ['-c', 'exit 0']).status !== 0) {
      this.skip();
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'ralph-reader-'));
    try {
      const file = path.join(dir, 'progress.txt');
      const text = progressFixture();
      writeFileSync(file, text);
      const { spawn } = await import('node:child_process');
      const reader = spawn('bash', ['-c', 'exec 3<"$1"; echo ready; read -r _ <&0', 'reader', file], { stdio: ['pipe', 'pipe', 'ignore'] });
      await new Promise<void>((resolve) => reader.stdout.once('data', () => resolve()));
      try {
        const plan = planCompaction(text, { threshold: 100, keepRecentLines: 40 });
        await applyCompaction(file, readFileSync(file), plan, new Date(), { graceMs: 10, settleMs: 500 });
        assert.equal(readFileSync(file, 'utf8'), plan.text);
      } finally {
        reader.stdin.end('\n');
        await new Promise((r) => reader.on('close', r));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
