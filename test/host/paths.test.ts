/**
 * Issue 8 item 2, the views: `ralph.prdPath`, `ralph.progressPath`, `ralph.pinPath` and the Pin's
 * file paths are resolved (symlinks followed) and must land inside the workspace folder. A path
 * leading out (through `..` or a committed symlink to a folder outside) is not read: the Stories
 * and Memory views show why, and nothing from the outside file appears; a command that would
 * write there refuses with a message and writes nothing.
 *
 * Each test makes its own folder outside the workspace (a sibling, so `../<name>/…` reaches it)
 * and removes it, the symlinks and the settings in its teardown.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TreeSnapshotNode } from '../../src/api';
import { answering, api, closeAllEditors, expectCommandError, snapshot, waitFor, workspaceFolder } from './helpers';

const OUTSIDE_STORY = 'OUT-PRD-7731';
const OUTSIDE_LEARNING = 'OUTSIDE-LEARNING-5521 must never reach the Memory view';
const OUTSIDE_MODULE = 'OutsideModule9042';

function root(): string {
  return workspaceFolder().uri.fsPath;
}

function flatten(nodes: readonly TreeSnapshotNode[]): TreeSnapshotNode[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children ?? [])]);
}

function labels(nodes: readonly TreeSnapshotNode[]): string[] {
  return flatten(nodes).map((n) => `${n.label}${n.description ? ` — ${n.description}` : ''}`);
}

async function memory(depth = 4): Promise<TreeSnapshotNode[]> {
  const a = await api();
  await a.whenIdle();
  return a.memorySnapshot(depth);
}

const outsidePrd = JSON.stringify(
  {
    project: 'Outside',
    branchName: 'ralph/outside',
    description: 'A prd.json outside the workspace',
    userStories: [{ id: OUTSIDE_STORY, title: 'Secret story from outside', description: 'x', acceptanceCriteria: ['x'], priority: 1, passes: false, notes: '' }],
  },
  null,
  2,
);

const outsideProgress = `# Ralph Progress Log
Started: 2026-11-18 13:41:07
---

## Codebase Patterns
- OUTSIDE-PATTERN-1187 from outside

## 2026-11-18 14:00 - US-001
- Did things
- **Learnings for future iterations:**
  - ${OUTSIDE_LEARNING}
---
`;

const outsidePin = `# The Pin

### ${OUTSIDE_MODULE}
Keywords: outside, secret
Files: secret.ts
`;

suite('paths from settings and the Pin stay inside the workspace (views)', () => {
  let outside: string;
  let outsideName: string;
  const links: string[] = [];
  const written: string[] = [];

  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('ralph', workspaceFolder().uri);

  async function set(key: string, value: string): Promise<void> {
    await config().update(key, value, vscode.ConfigurationTarget.Workspace);
    assert.equal(config().get(key), value, `the setting ralph.${key} did not take effect`);
  }

  function link(rel: string): void {
    const at = path.join(root(), rel);
    fs.symlinkSync(outside, at, 'dir');
    links.push(at);
  }

  setup(() => {
    outside = fs.mkdtempSync(path.join(path.dirname(root()), 'ralph-outside-'));
    outsideName = path.basename(outside);
    fs.writeFileSync(path.join(outside, 'prd.json'), outsidePrd);
    fs.writeFileSync(path.join(outside, 'progress.txt'), outsideProgress);
    fs.writeFileSync(path.join(outside, 'INDEX.md'), outsidePin);
    fs.writeFileSync(path.join(outside, 'secret.ts'), 'export const secret = 1;\n');
  });

  teardown(async () => {
    await closeAllEditors();
    for (const key of ['prdPath', 'progressPath', 'pinPath']) {
      if (config().inspect(key)?.workspaceValue !== undefined) {
        await config().update(key, undefined, vscode.ConfigurationTarget.Workspace);
      }
    }
    for (const l of links.splice(0)) {
      fs.rmSync(l, { force: true });
    }
    for (const w of written.splice(0)) {
      fs.rmSync(w, { force: true });
    }
    fs.rmSync(outside, { recursive: true, force: true });
    // The demo is back: its stories and its learnings show again.
    await waitFor('the demo stories in the Stories view', async () => labels(await snapshot(1)).some((l) => l.startsWith('US-006 ')), 10_000, async () => labels(await snapshot(1)));
    await waitFor('the demo memory in the Memory view', async () => !labels(await memory()).some((l) => /outside the workspace/.test(l)), 10_000, async () => labels(await memory()));
  });

  async function expectPrdRefused(value: string): Promise<void> {
    await set('prdPath', value);
    const seen = await waitFor(
      'the Stories view to say that ralph.prdPath was refused',
      async () => {
        const all = labels(await snapshot(3));
        return all.some((l) => l.includes(`ralph.prdPath "${value}"`) && /outside the workspace folder/.test(l) && /not read/.test(l)) ? all : undefined;
      },
      10_000,
      async () => labels(await snapshot(3)),
    );
    assert.ok(!seen.some((l) => l.includes(OUTSIDE_STORY)), `the Stories view shows the story of the prd.json outside: ${JSON.stringify(seen)}`);
    const a = await api();
    assert.ok(!JSON.stringify(await a.storiesSnapshot(5)).includes(OUTSIDE_STORY));
  }

  test('ralph.prdPath through ".." to a prd.json outside: not read, the Stories view says why', async () => {
    await expectPrdRefused(`../${outsideName}/prd.json`);
  });

  test('ralph.prdPath through a symlink to a folder outside: not read, the Stories view says why', async () => {
    link('linked-out');
    await expectPrdRefused('linked-out/prd.json');
  });

  async function expectProgressRefused(value: string): Promise<void> {
    await set('progressPath', value);
    const seen = await waitFor(
      'the Memory view to say that ralph.progressPath was refused',
      async () => {
        const all = labels(await memory());
        return all.some((l) => l.includes(`ralph.progressPath "${value}"`) && /outside the workspace folder/.test(l)) ? all : undefined;
      },
      10_000,
      async () => labels(await memory()),
    );
    const text = JSON.stringify(seen);
    assert.ok(!text.includes('OUTSIDE-LEARNING-5521'), `the Memory view shows a learning of the progress.txt outside: ${text}`);
    assert.ok(!text.includes('OUTSIDE-PATTERN-1187'), `the Memory view shows a pattern of the progress.txt outside: ${text}`);
    // Writing a pattern there is refused with the same message, and nothing is written outside.
    const before = fs.readFileSync(path.join(outside, 'progress.txt'), 'utf8');
    const message = await expectCommandError('ralph.memory.addPattern', () => vscode.commands.executeCommand('ralph.memory.addPattern', 'A pattern that must not leave', workspaceFolder().uri));
    assert.match(message, /outside the workspace folder/);
    assert.equal(fs.readFileSync(path.join(outside, 'progress.txt'), 'utf8'), before, 'Add Pattern wrote to the progress.txt outside the workspace');
    // Compacting it is refused the same way.
    const compact = await expectCommandError('ralph.memory.compact', () => answering('Apply', () => vscode.commands.executeCommand('ralph.memory.compact', { folder: workspaceFolder().uri })));
    assert.match(compact, /outside the workspace folder/);
    assert.equal(fs.readFileSync(path.join(outside, 'progress.txt'), 'utf8'), before, 'Compact wrote to the progress.txt outside the workspace');
  }

  test('ralph.prdPath naming a FIFO inside the workspace: not read (no hang), the Stories view says why', async function () {
    if (process.platform === 'win32') {
      this.skip();
    }
    const fifo = path.join(root(), 'paths-test.fifo');
    execFileSync('mkfifo', [fifo]);
    written.push(fifo);
    await set('prdPath', 'paths-test.fifo');
    await waitFor(
      'the Stories view to say that ralph.prdPath is not a regular file',
      async () => labels(await snapshot(1)).some((l) => l.includes('ralph.prdPath "paths-test.fifo"') && /not a regular file/.test(l)),
      10_000,
      async () => labels(await snapshot(1)),
    );
  });

  test('ralph.progressPath through ".." to a progress.txt outside: no learning of it in the Memory view, Add Pattern refuses', async () => {
    await expectProgressRefused(`../${outsideName}/progress.txt`);
  });

  test('ralph.progressPath through a symlink to a folder outside: no learning of it in the Memory view, Add Pattern refuses', async () => {
    link('linked-out');
    await expectProgressRefused('linked-out/progress.txt');
  });

  test('ralph.pinPath through a symlink to a folder outside: its modules are not shown, the Memory view says why', async () => {
    link('linked-out');
    await set('pinPath', 'linked-out/INDEX.md');
    const seen = await waitFor(
      'the Memory view to say that ralph.pinPath was refused',
      async () => {
        const all = labels(await memory());
        return all.some((l) => l.includes('ralph.pinPath "linked-out/INDEX.md"') && /outside the workspace folder/.test(l)) ? all : undefined;
      },
      10_000,
      async () => labels(await memory()),
    );
    assert.ok(!JSON.stringify(seen).includes(OUTSIDE_MODULE), `the Memory view shows a module of the Pin outside: ${JSON.stringify(seen)}`);
    // Generating the Pin there is refused, and the Pin outside is unchanged.
    const message = await expectCommandError('ralph.pin.generate', () => answering('Apply', () => vscode.commands.executeCommand('ralph.pin.generate', { folder: workspaceFolder().uri })));
    assert.match(message, /outside the workspace folder/);
    assert.equal(fs.readFileSync(path.join(outside, 'INDEX.md'), 'utf8'), outsidePin, 'Generate the Pin wrote to the Pin outside the workspace');
  });

  test('a Pin entry whose file leads outside (.. or a symlink) is not opened', async () => {
    link('linked-out');
    const pinRel = 'specs/paths-test-pin.md';
    const pinAbs = path.join(root(), ...pinRel.split('/'));
    fs.mkdirSync(path.dirname(pinAbs), { recursive: true });
    fs.writeFileSync(pinAbs, `# The Pin\n\n### LeakyModule\nKeywords: leaky\nFiles: ../${outsideName}/secret.ts, linked-out/secret.ts\n`);
    written.push(pinAbs);
    await set('pinPath', pinRel);
    const tree = await waitFor('the Pin module in the Memory view', async () => {
      const all = flatten(await memory(5));
      return all.some((n) => n.label === 'LeakyModule') ? all : undefined;
    });
    for (const rel of [`../${outsideName}/secret.ts`, 'linked-out/secret.ts']) {
      const node = tree.find((n) => n.label === rel);
      assert.ok(node, `the Pin's file ${rel} is listed (marked), got ${JSON.stringify(labels(tree))}`);
      assert.match(node.description ?? '', /outside the workspace/, `the Pin's file ${rel} should say it leads outside`);
    }
    // Opening it (the tree item's command, or Search the Pin) refuses and opens no editor.
    const uri = vscode.Uri.file(path.join(root(), 'linked-out', 'secret.ts'));
    const message = await expectCommandError('ralph.openAt', () => vscode.commands.executeCommand('ralph.openAt', uri, 0));
    assert.match(message, /outside the workspace folder/);
    assert.ok(
      !vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath.endsWith('secret.ts'))),
      'an editor shows the file outside the workspace',
    );
  });
});
