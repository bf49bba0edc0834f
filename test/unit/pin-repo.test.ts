/** Generating the Pin of a repository on disk (src/node/pinRepo.ts): what it reads. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateRepoPin } from '../../src/node/pinRepo';

const haveGit = spawnSync('git', ['--version']).status === 0;

describe('Generate the Pin on disk', () => {
  let top: string;
  let root: string;
  beforeEach(() => {
    top = mkdtempSync(path.join(tmpdir(), 'ralph-pin-repo-'));
    root = path.join(top, 'repo');
    mkdirSync(path.join(root, 'src', 'api'), { recursive: true });
    mkdirSync(path.join(top, 'outside'));
    writeFileSync(path.join(top, 'outside', 'secret.ts'), 'export function exfiltratedOutsideIdentifier() {}\n');
    writeFileSync(path.join(root, 'src', 'api', 'handler.ts'), 'export function handleRequest() {}\n');
    writeFileSync(path.join(root, 'src', 'api', 'inside.ts'), 'export function insideTargetIdentifier() {}\n');
  });
  afterEach(() => {
    rmSync(top, { recursive: true, force: true });
  });

  it('does not follow a symbolic link out of the repository (git lists it), and reads one that stays inside', async function () {
    if (!haveGit || process.platform === 'win32') {
      this.skip();
    }
    symlinkSync(path.join(top, 'outside', 'secret.ts'), path.join(root, 'src', 'api', 'linked.ts'));
    symlinkSync('inside.ts', path.join(root, 'src', 'api', 'alias.ts'));
    spawnSync('git', ['init', '-q'], { cwd: root });
    const pin = await generateRepoPin(root, path.join(root, 'specs', 'INDEX.md'));
    assert.equal(pin.source, 'git');
    assert.ok(pin.files.includes('src/api/linked.ts'));
    assert.ok(!/exfiltrated/i.test(pin.text), pin.text);
    assert.match(pin.text, /handleRequest|handle/i);
  });
});
