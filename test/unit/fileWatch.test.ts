import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { watchFileInside } from '../../src/node/fileWatch';

/** Resolves when `probe` is true (checked every 5 ms), or rejects after `ms`. */
async function until(what: string, probe: () => boolean, ms = 5_000): Promise<void> {
  const start = Date.now();
  while (!probe()) {
    if (Date.now() - start > ms) {
      throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('watchFileInside (the fast watch of prd.json)', () => {
  let root: string;
  beforeEach(() => {
    root = realpathSync(mkdtempSync(path.join(tmpdir(), 'ralph-watch-')));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('reports a write, an atomic replace (rename) and a later creation of the file, not of its neighbours', async () => {
    mkdirSync(path.join(root, 'tasks'));
    const file = path.join(root, 'tasks', 'prd.json');
    writeFileSync(file, '{}');
    let n = 0;
    const w = watchFileInside(root, 'tasks/prd.json', () => n++);
    assert.ok(w, 'a folder inside the workspace is watched');
    try {
      writeFileSync(path.join(root, 'tasks', 'other.json'), '{}');
      writeFileSync(file, '{"userStories": []}');
      await until('the write to be reported', () => n > 0);
      const afterWrite = n;
      writeFileSync(`${file}.tmp`, '{"userStories": [1]}');
      renameSync(`${file}.tmp`, file);
      await until('the rename to be reported', () => n > afterWrite);
      rmSync(file);
      const afterDelete = n;
      writeFileSync(file, '{}');
      await until('the new file to be reported', () => n > afterDelete);
    } finally {
      w.close();
    }
    // a neighbour alone reports nothing
    let m = 0;
    const w2 = watchFileInside(root, 'tasks/prd.json', () => m++);
    try {
      writeFileSync(path.join(root, 'tasks', 'other.json'), '{"x": 1}');
      // a write to the watched file afterwards proves the watch was live when the neighbour changed
      writeFileSync(file, '{"y": 1}');
      await until('the watched file to be reported', () => m > 0);
    } finally {
      w2?.close();
    }
  });

  it('does not watch a folder outside the workspace (a symlink out, ..), nor a missing one', () => {
    const outside = realpathSync(mkdtempSync(path.join(tmpdir(), 'ralph-watch-out-')));
    try {
      symlinkSync(outside, path.join(root, 'link'));
      assert.equal(watchFileInside(root, 'link/prd.json', () => undefined), undefined);
      assert.equal(watchFileInside(root, '../prd.json', () => undefined), undefined);
      assert.equal(watchFileInside(root, 'missing/prd.json', () => undefined), undefined);
      assert.equal(watchFileInside(root, '', () => undefined), undefined);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
