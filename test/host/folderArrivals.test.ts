/**
 * Files that arrive with their folder. On Linux, VS Code's recursive file watcher (@parcel/watcher
 * on inotify) reports a new folder but can miss a file created in it right after
 * (parcel-bundler/watcher#243): a `git checkout` that brings `.ralph/runs.jsonl`, ralph.sh's
 * `mkdir -p archive/<date>-<feature>` followed by `cp prd.json progress.txt`. What the views show
 * must still follow. Each case is done several times, as a race shows only some of the time.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { type RunRecord, serializeRun } from '../../src/core/runs/runs';
import { api, isStory, waitFor, waitForTree, workspaceFolder } from './helpers';
import { ensureGitWorkspace, git, type Pristine, restoreWorkspace, ws } from './runHelpers';

const ROUNDS = 5;

const run: RunRecord = {
  start: '2026-11-26T10:00:00.000Z', end: '2026-11-26T10:00:30.000Z', storyId: 'US-006', storyTitle: 'Sort tasks by priority', agent: 'custom',
  exitCode: 0, durationMs: 30_000, passingBefore: 4, passingAfter: 5, storyPasses: true, commit: null, complete: false, outcome: 'passed',
  promptFile: '.ralph/prompts/p1.md', iteration: 1, loopId: 'loop-arrivals',
};

suite('files that arrive with their folder (a git checkout, ralph.sh archiving)', function () {
  this.timeout(180_000);
  let pristine: Pristine;

  suiteSetup(() => {
    pristine = ensureGitWorkspace();
  });

  // Whatever an earlier suite left (a .ralph/ of its runs), each test starts from the demo's commit.
  setup(async () => {
    await restoreWorkspace(pristine);
  });

  teardown(async () => {
    await restoreWorkspace(pristine);
  });

  const pinDescription = async (): Promise<string | undefined> => (await (await api()).memorySnapshot(1)).find((n) => n.label === 'The Pin')?.description;
  const learningsDescription = async (): Promise<string | undefined> => (await (await api()).memorySnapshot(1)).find((n) => n.label === 'Learnings')?.description;
  const runRows = async (): Promise<number> => (await (await api()).runsSnapshot()).filter((n) => n.contextValue?.startsWith('run ')).length;
  const archivesNode = async (): Promise<string | undefined> => (await (await api()).runsSnapshot()).find((n) => n.contextValue === 'archives')?.description;

  /** A branch `with-runs` whose commit holds .ralph/runs.jsonl with one run; the demo's branch checked out again. */
  function branchWithRuns(): void {
    git('checkout', '-q', '-b', 'with-runs');
    fs.mkdirSync(ws('.ralph'));
    fs.writeFileSync(ws('.ralph', 'runs.jsonl'), serializeRun(run));
    git('add', '-f', '.ralph/runs.jsonl');
    git('commit', '-q', '-m', 'test: a branch that holds its runs');
    git('checkout', '-q', pristine.baseBranch);
  }

  test('a checkout that brings .ralph/runs.jsonl shows its run in the Runs view; checking out back, it goes', async () => {
    assert.ok(!fs.existsSync(ws('.ralph')), 'the demo starts without .ralph/');
    branchWithRuns();
    for (let round = 1; round <= ROUNDS; round++) {
      await waitFor(`round ${round}: no run listed, .ralph/ gone with the checkout`, async () => !fs.existsSync(ws('.ralph')) && (await runRows()) === 0, 20_000);
      git('checkout', '-q', 'with-runs');
      await waitFor(`round ${round}: the run .ralph/runs.jsonl brought, in the Runs view`, async () => (await runRows()) === 1, 20_000);
      git('checkout', '-q', pristine.baseBranch);
    }
  });

  test('a .ralph/ without runs removed, and at once a checkout that brings .ralph/runs.jsonl: the run shows', async () => {
    branchWithRuns();
    // The editor's own watcher says when it has seen each step, so that the removal and the
    // checkout come in one burst after it, as when a clean (git clean -fdx) is followed by a
    // checkout: the watcher then reports the folder's removal and return as one change of .ralph/.
    const seen = vscode.workspace.createFileSystemWatcher('**/{.ralph,.ralph/last-branch}');
    const created: string[] = [];
    seen.onDidCreate((u) => created.push(u.path.slice(u.path.lastIndexOf('/.ralph'))));
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        await waitFor(`round ${round}: no run listed`, async () => !fs.existsSync(ws('.ralph')) && (await runRows()) === 0, 20_000);
        created.length = 0;
        fs.mkdirSync(ws('.ralph'));
        await waitFor(`round ${round}: the editor's watcher saw .ralph/`, () => created.includes('/.ralph'), 20_000);
        fs.writeFileSync(ws('.ralph', 'last-branch'), 'ralph/old\n');
        await waitFor(`round ${round}: the editor's watcher saw .ralph/last-branch`, () => created.includes('/.ralph/last-branch'), 20_000);
        fs.rmSync(ws('.ralph'), { recursive: true, force: true });
        git('checkout', '-q', 'with-runs');
        await waitFor(`round ${round}: the run .ralph/runs.jsonl brought, in the Runs view`, async () => (await runRows()) === 1, 20_000);
        git('checkout', '-q', pristine.baseBranch);
      }
    } finally {
      seen.dispose();
    }
  });

  test('ralph.sh archiving a feature (mkdir, then cp at once) shows in the Runs view\'s Archives', async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      await waitFor(`round ${round}: no archive listed`, async () => !fs.existsSync(ws('archive')) && (await archivesNode()) === undefined, 20_000);
      const dir = ws('archive', `2026-11-2${round}-old-feature`);
      fs.mkdirSync(dir, { recursive: true });
      fs.copyFileSync(ws('prd.json'), `${dir}/prd.json`);
      fs.copyFileSync(ws('progress.txt'), `${dir}/progress.txt`);
      await waitFor(`round ${round}: the archive in the Runs view`, async () => (await archivesNode()) === '1 previous feature', 20_000);
      fs.rmSync(ws('archive'), { recursive: true, force: true });
    }
  });

  test('the Pin\'s specs/ folder arriving with its INDEX.md shows the Pin in the Memory view', async () => {
    const index = fs.readFileSync(ws('specs', 'INDEX.md'), 'utf8');
    const want = await pinDescription();
    assert.match(want ?? '', /^\d+ modules$/);
    const aside = ws('..', `specs-aside-${process.pid}`);
    fs.renameSync(ws('specs'), aside);
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        await waitFor(`round ${round}: the Pin shown as missing`, async () => !fs.existsSync(ws('specs')) && (await pinDescription()) !== want, 20_000);
        fs.mkdirSync(ws('specs'));
        fs.writeFileSync(ws('specs', 'INDEX.md'), index);
        await waitFor(`round ${round}: the Pin's modules in the Memory view`, async () => (await pinDescription()) === want, 20_000);
        fs.rmSync(ws('specs'), { recursive: true, force: true });
      }
    } finally {
      fs.rmSync(ws('specs'), { recursive: true, force: true });
      fs.renameSync(aside, ws('specs'));
    }
  });

  test('a progress log set by ralph.progressPath under another name, two folders down: its arrival (mkdir -p) and every later append show', async () => {
    const settings = vscode.workspace.getConfiguration('ralph', workspaceFolder().uri);
    await settings.update('progressPath', 'memory/ralph/log.md', vscode.ConfigurationTarget.WorkspaceFolder);
    try {
      await waitFor('no learnings read (memory/ralph/log.md does not exist yet)', async () => !/in \d+ stor/.test((await learningsDescription()) ?? ''), 20_000);
      const progress = fs.readFileSync(ws('progress.txt'), 'utf8');
      fs.mkdirSync(ws('memory', 'ralph'), { recursive: true });
      fs.writeFileSync(ws('memory', 'ralph', 'log.md'), progress);
      const first = await waitFor('the learnings of memory/ralph/log.md', async () => {
        const d = await learningsDescription();
        return d && /^\d+ in 4 stories$/.test(d) ? d : undefined;
      }, 20_000);
      // An agent's appends, later, in a folder the editor's own watcher never watched (it arrived
      // below memory/, made in the same mkdir -p).
      for (const [n, id] of [[5, 'US-009'], [6, 'US-010']] as const) {
        fs.appendFileSync(ws('memory', 'ralph', 'log.md'), `\n## 2026-11-26 10:0${n} - ${id}\n- Did it\n- **Learnings for future iterations:**\n  - a learning of ${id}\n---\n`);
        await waitFor(`the appended learning of ${id}, in story ${n}`, async () => new RegExp(`^\\d+ in ${n} stories$`).test((await learningsDescription()) ?? ''), 20_000, async () => [first, await learningsDescription()]);
      }
    } finally {
      await settings.update('progressPath', undefined, vscode.ConfigurationTarget.WorkspaceFolder);
    }
  });

  test('ralph.prdPath scripts/ralph/prd.json, brought by a checkout with its folders: the stories show, and so does every later edit on disk', async () => {
    const settings = vscode.workspace.getConfiguration('ralph', workspaceFolder().uri);
    const prd = fs.readFileSync(ws('prd.json'), 'utf8');
    git('checkout', '-q', '-b', 'ralph-layout');
    fs.mkdirSync(ws('scripts', 'ralph'), { recursive: true });
    fs.writeFileSync(ws('scripts', 'ralph', 'prd.json'), prd);
    git('add', 'scripts/ralph/prd.json');
    git('commit', '-q', '-m', 'test: the original Ralph layout');
    git('checkout', '-q', pristine.baseBranch);
    assert.ok(!fs.existsSync(ws('scripts')), 'the checkout took scripts/ away');
    await settings.update('prdPath', 'scripts/ralph/prd.json', vscode.ConfigurationTarget.WorkspaceFolder);
    try {
      await waitForTree('no stories (scripts/ralph/prd.json is not there)', (nodes) => !nodes.some(isStory), 1, 20_000);
      git('checkout', '-q', 'ralph-layout');
      await waitForTree('the 12 stories of scripts/ralph/prd.json', (nodes) => nodes.filter(isStory).length === 12, 1, 20_000);
      for (const round of [1, 2, 3]) {
        const title = `Edited on disk by an agent, ${round}`;
        fs.writeFileSync(ws('scripts', 'ralph', 'prd.json'), prd.replace('"Sort tasks by priority"', JSON.stringify(title)));
        await waitForTree(`round ${round}: the edited title in the Stories view`, (nodes) => nodes.some((n) => n.label.includes(title)), 1, 20_000);
      }
    } finally {
      await settings.update('prdPath', undefined, vscode.ConfigurationTarget.WorkspaceFolder);
    }
  });

  test('an agent that writes a research document with its folders in one go (mkdir -p, then the file): the Issues view shows it on disk', async () => {
    const doc = 'thoughts/shared/research/2026-11-15-GH-0042-task-priorities.md';
    const text = fs.readFileSync(ws(...doc.split('/')), 'utf8');
    const aside = ws('..', `thoughts-aside-${process.pid}`);
    const research = async (): Promise<string | undefined> => {
      const i42 = (await (await api()).issuesSnapshot()).find((n) => n.label.startsWith('#42'));
      const node = i42?.children?.find((c) => /\bartifact\b/.test(c.contextValue ?? '') && c.label === 'Research');
      return node?.description;
    };
    await vscode.commands.executeCommand('ralph.github.showIssue', 42);
    await waitFor('#42\'s research on disk', async () => (await research())?.startsWith('on disk'), 20_000, research);
    fs.renameSync(ws('thoughts'), aside);
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        await waitFor(`round ${round}: #42's research missing`, async () => !fs.existsSync(ws('thoughts')) && !(await research())?.startsWith('on disk'), 20_000, research);
        fs.mkdirSync(ws('thoughts', 'shared', 'research'), { recursive: true });
        fs.writeFileSync(ws(...doc.split('/')), text);
        await waitFor(`round ${round}: #42's research on disk again`, async () => (await research())?.startsWith('on disk'), 20_000, research);
        fs.rmSync(ws('thoughts'), { recursive: true, force: true });
      }
    } finally {
      fs.rmSync(ws('thoughts'), { recursive: true, force: true });
      fs.renameSync(aside, ws('thoughts'));
    }
  });
});
