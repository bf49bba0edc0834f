/**
 * Add Learning while an agent appends to progress.txt (issue 8 item 8): the learning always lands
 * under its story. The extension appends `addLearningAppend`'s text with O_APPEND when the file is
 * not open in an editor (src/services/fileEdits.ts): here a real writer process appends whole
 * entries between our read and our append.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addLearningAppend } from '../../src/core/progress/edits';
import { parseProgress } from '../../src/core/progress/parse';

const haveBash = process.platform !== 'win32' && spawnSync('bash', ['-c', 'exit 0']).status === 0;
const now = new Date(2026, 10, 19, 9, 5);
const base = '# Ralph Progress Log\n---\n\n## 2026-01-01 - US-000\n- old\n---\n\n## 2026-01-02 - US-001\n- did\n- **Learnings for future iterations:**\n  - first\n';

function storyOfLearning(text: string, learning: string): string | undefined {
  for (const e of parseProgress(text).entries) {
    if (e.learnings.some((l) => l.text === learning)) {
      return e.storyId;
    }
  }
  return undefined;
}

describe('Add Learning with an agent appending at the same time', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ralph-learning-race-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('never lands under an entry appended between reading and appending (every interleaving point)', () => {
    const agentEntry = '\n## 2026-01-03 - US-002\n- agent work\n- **Learnings for future iterations:**\n  - agent learning\n---\n';
    const append = addLearningAppend(base, 'US-001', 'mine', now)!;
    assert.notEqual(append, undefined);
    assert.equal(storyOfLearning(base + append, 'mine'), 'US-001');
    assert.equal(storyOfLearning(base + agentEntry + append, 'mine'), 'US-001');
    assert.equal(storyOfLearning(base + agentEntry + agentEntry + append, 'mine'), 'US-001');
  });

  it('0 of 200 real interleavings with a writer process misplace the learning', async function () {
    if (!haveBash) {
      this.skip();
    }
    const file = path.join(dir, 'progress.txt');
    const script = path.join(dir, 'agent.sh');
    // The agent appends $2 entries, one `>>` each.
    await writeFile(script, 'for i in $(seq 1 "$2"); do printf "\\n## 2026-01-03 - US-%03d\\n- agent work\\n---\\n" "$((i + 100))" >> "$1"; done\n');
    let misplaced = 0;
    let between = 0;
    const trials = 200;
    for (let t = 0; t < trials; t++) {
      await writeFile(file, base);
      // What the extension does when progress.txt is not open: read, compute the append, append.
      const text = await readFile(file, 'utf8');
      const learning = `learning ${t}`;
      const append = addLearningAppend(text, 'US-001', learning, now);
      assert.notEqual(append, undefined);
      // The agent starts appending before our append reaches the file.
      const agent = spawn('bash', [script, file, String(1 + (t % 4))], { stdio: 'ignore' });
      const exited = new Promise((r) => agent.on('close', r));
      const end = Date.now() + 10_000;
      while (t % 2 === 0 && (await stat(file)).size === base.length && Date.now() < end) {
        await new Promise((r) => setImmediate(r));
      }
      await appendFile(file, append!);
      await exited;
      const after = await readFile(file, 'utf8');
      if (after.indexOf('## 2026-01-03') >= 0 && after.indexOf('## 2026-01-03') < after.indexOf(learning)) {
        between++;
      }
      if (storyOfLearning(after, learning) !== 'US-001') {
        misplaced++;
      }
    }
    assert.ok(between >= trials / 4, `only ${between} trials had an agent entry before the learning`);
    assert.equal(misplaced, 0, `${misplaced} of ${trials} learnings landed under another story (${between} with an agent entry first)`);
  });
});
