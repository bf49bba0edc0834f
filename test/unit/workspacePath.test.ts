import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readInsideBounded, resolveInside, resolveInsideSync, writableInside, WorkspacePathError } from '../../src/node/workspacePath';

describe('workspacePath: paths from workspace files stay inside the folder', () => {
  let base: string;
  let root: string;
  let outside: string;
  beforeEach(() => {
    base = mkdtempSync(path.join(tmpdir(), 'ralph-wp-'));
    root = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    mkdirSync(path.join(root, 'specs'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'secret.txt'), 'SECRET\n');
    writeFileSync(path.join(root, 'specs', 'a.md'), 'line1\nline2\nline3\n');
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('resolves a plain relative path, existing or not', async () => {
    assert.equal(await resolveInside(root, 'specs/a.md'), path.join(root, 'specs', 'a.md'));
    assert.equal(await resolveInside(root, 'new/dir/file.txt'), path.join(root, 'new', 'dir', 'file.txt'));
    assert.equal(resolveInsideSync(root, 'specs/../specs/a.md'), path.join(root, 'specs', 'a.md'));
  });

  it('refuses .., absolute paths and symlinks that lead out', async () => {
    await assert.rejects(resolveInside(root, '../outside/secret.txt'), WorkspacePathError);
    await assert.rejects(resolveInside(root, path.join(outside, 'secret.txt')), /absolute/);
    symlinkSync(outside, path.join(root, 'specs', 'linked'));
    await assert.rejects(resolveInside(root, 'specs/linked/secret.txt'), /symbolic link/);
    await assert.rejects(resolveInside(root, 'specs/linked/not-yet.txt'), /symbolic link/);
    assert.throws(() => resolveInsideSync(root, 'specs/linked/secret.txt'), /symbolic link/);
  });

  it('accepts a symlink that stays inside', async () => {
    symlinkSync(path.join(root, 'specs', 'a.md'), path.join(root, 'alias.md'));
    assert.equal(await resolveInside(root, 'alias.md'), path.join(root, 'specs', 'a.md'));
  });

  it('reads at most the given bytes and lines, and only regular files', async () => {
    const r = await readInsideBounded(root, 'specs/a.md', { maxBytes: 1000, maxLines: 2 });
    assert.deepEqual(r, { text: 'line1\nline2\n', truncated: true });
    const b = await readInsideBounded(root, 'specs/a.md', { maxBytes: 4 });
    assert.deepEqual(b, { text: 'line', truncated: true });
    assert.equal(await readInsideBounded(root, 'specs/missing.md', { maxBytes: 10 }), undefined);
    await assert.rejects(readInsideBounded(root, 'specs', { maxBytes: 10 }), /not a regular file/);
  });

  it('refuses to write through a symlink that leads out', async () => {
    symlinkSync(outside, path.join(root, '.ralph'));
    await assert.rejects(writableInside(root, '.ralph/runs.jsonl'), /symbolic link/);
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'progress.txt'));
    await assert.rejects(writableInside(root, 'progress.txt'), /symbolic link/);
    assert.equal(await writableInside(root, 'specs/a.md'), path.join(root, 'specs', 'a.md'));
  });
});
