/**
 * The generated workflow's jobs, executed here against scratch repositories (a bare "origin" and
 * a runner's clone), with the pretend agent through the custom preset, the built CLI for
 * `npx ralph-workbench` and a `gh` stub (test/unit/actionsLocal.ts): what runs on GitHub is what
 * was tested here (issue 20, "Run on Actions").
 */
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { renderWorkflow } from '../../src/core/github/workflow';
import { localRunner } from './actionsLocal';
import { copyBuiltCli, makePrd } from './helpers';
import { git, PROGRESS } from './parallelRepo';

const FAKE = path.resolve(__dirname, '../fixtures/fake-agent.mjs');
const FEATURE = 'ralph/demo';

describe('GitHub Actions workflow, its steps run locally (scratch origin, pretend agent, gh stub)', function () {
  this.timeout(180_000);
  const built = path.resolve(__dirname, '../../dist/cli.js');
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  /** A bare origin whose feature branch holds prd.json (US-001 first, three stories behind it). */
  function scratch(stories = [
    { id: 'US-001', title: 'Sign in', issue: 12 },
    { id: 'US-002', title: 'Sign out', issue: '#13', blockedBy: ['US-001'] },
    { id: 'US-003', title: 'Profile', issue: 14, blockedBy: ['US-001'] },
    { id: 'US-004', title: 'Avatar', blockedBy: ['US-001'] },
    { id: 'US-005', title: 'Settings', issue: 15, blockedBy: ['US-002'] },
  ]): { dir: string; origin: string; seed: string; cli: string } {
    assert.ok(existsSync(built), 'dist/cli.js is missing: run `npm run build` first (npm test does) — this test runs the built CLI');
    const dir = mkdtempSync(path.join(tmpdir(), 'ralph-actions-'));
    dirs.push(dir);
    const origin = path.join(dir, 'origin.git');
    const seed = path.join(dir, 'seed');
    git(dir, 'init', '-q', '--bare', '-b', 'main', origin);
    mkdirSync(seed);
    git(seed, 'init', '-q', '-b', 'main');
    git(seed, 'config', 'user.name', 'Seed');
    git(seed, 'config', 'user.email', 'seed@example.invalid');
    writeFileSync(path.join(seed, 'prd.json'), makePrd(stories, { branchName: FEATURE }));
    writeFileSync(path.join(seed, 'progress.txt'), PROGRESS);
    git(seed, 'add', '-A');
    git(seed, 'commit', '-q', '-m', 'initial');
    git(seed, 'checkout', '-q', '-b', FEATURE);
    git(seed, 'remote', 'add', 'origin', origin);
    git(seed, 'push', '-q', 'origin', 'main', FEATURE);
    return { dir, origin, seed, cli: copyBuiltCli(dir) };
  }

  const workflow = renderWorkflow({ preset: 'custom', agentCommand: `node ${JSON.stringify(FAKE)} < \${promptFile}`, prdPath: 'prd.json', maxParallel: 3 });

  const dispatch = { 'inputs.story': 'US-001', 'inputs.branch': FEATURE, 'github.token': 'ghs_test' };

  it('run + publish: checks the story, runs the agent, pushes <branch>-<story> with the feat commit and opens the pull request that closes its issue', () => {
    const { dir, origin, cli } = scratch();
    const runner = localRunner(workflow, dir, origin, cli);
    runner.runJob('run', dispatch);
    assert.equal(git(origin, 'branch', '--list', `${FEATURE}-US-001`), '', 'the job that ran the agent pushed nothing');
    assert.deepEqual(runner.calls().filter((c) => c.args[1] === 'create'), [], 'and opened nothing');
    runner.runJob('publish', dispatch);

    const branch = `${FEATURE}-US-001`;
    assert.equal(git(origin, 'log', '-1', '--format=%s', branch), 'feat: US-001 - Sign in');
    assert.equal(git(origin, 'rev-parse', `${branch}~1`), git(origin, 'rev-parse', FEATURE), 'the story branch is one commit on the feature branch');
    assert.match(git(origin, 'show', `${branch}:prd.json`), /"id": "US-001",\n {6}"title": "Sign in",\n {6}"priority": 1,\n {6}"passes": true/);
    const create = runner.calls().find((c) => c.args[0] === 'pr' && c.args[1] === 'create');
    assert.ok(create, JSON.stringify(runner.calls()));
    const arg = (name: string) => create.args[create.args.indexOf(name) + 1];
    assert.equal(arg('--title'), 'feat: US-001 - Sign in');
    assert.equal(arg('--base'), FEATURE);
    assert.equal(arg('--head'), branch);
    assert.match(create.body ?? '', /^Closes #12\n/);
    assert.match(create.body ?? '', /\| Outcome \| passed \|/);
    assert.match(create.body ?? '', /\| Duration \| [^|]+ \|/);
  });

  it('run: a story that is not ready stops at the check, before any agent runs or anything is pushed', () => {
    const { dir, origin, cli } = scratch();
    const runner = localRunner(workflow, dir, origin, cli);
    assert.throws(() => runner.runJob('run', { 'inputs.story': 'US-002', 'inputs.branch': FEATURE, 'github.token': 'ghs_test' }), /Check the story[\s\S]*US-002 is not ready: it waits for US-001/);
    assert.equal(git(origin, 'branch', '--list', `${FEATURE}-US-002`), '');
    assert.deepEqual(runner.calls(), []);
    assert.ok(!existsSync(path.join(runner.workspace, '.ralph', 'runs.jsonl')), 'no agent ran');
  });

  it('run: a story id from the dispatch that is not a branch name git accepts is refused', () => {
    const { dir, origin, cli } = scratch();
    const runner = localRunner(workflow, dir, origin, cli);
    assert.throws(() => runner.runJob('run', { 'inputs.story': 'US-001 $(touch pwned)', 'inputs.branch': FEATURE, 'github.token': 'ghs_test' }), /not a name git accepts/);
    assert.ok(!existsSync(path.join(runner.workspace, 'pwned')));
  });

  it('run: without the repository variable RALPH_WORKBENCH_PACKAGE the job says to set it and installs nothing (no unpinned package name)', () => {
    const { dir, origin, cli } = scratch();
    const runner = localRunner(workflow, dir, origin, cli);
    assert.throws(() => runner.runJob('run', { 'inputs.story': 'US-001', 'inputs.branch': FEATURE, 'github.token': 'ghs_test', 'vars.RALPH_WORKBENCH_PACKAGE': '' }), /Set the repository variable RALPH_WORKBENCH_PACKAGE/);
    assert.deepEqual(runner.calls(), []);
  });

  it('run: an agent that fails makes no commit: the job stops before pushing, saying so', () => {
    const { dir, origin, cli } = scratch();
    const runner = localRunner(workflow, dir, origin, cli);
    assert.throws(
      () => runner.runJob('run', { 'inputs.story': 'US-001', 'inputs.branch': FEATURE, 'github.token': 'ghs_test' }, { FAKE_AGENT_MODE: 'fail' }),
      /step "Keep the story's commits for the job that publishes them" failed[\s\S]*The agent made no commit for US-001/,
    );
    assert.equal(git(origin, 'branch', '--list', `${FEATURE}-US-001`), '');
    assert.deepEqual(runner.calls().filter((c) => c.args[1] === 'create'), []);
  });

  it('run: an agent that commits without making the story pass gets its branch pushed but no pull request', () => {
    const { dir, origin, cli } = scratch();
    const wip = renderWorkflow({ preset: 'custom', agentCommand: `git commit -q --allow-empty -m "wip: \${storyId}"`, prdPath: 'prd.json' });
    const runner = localRunner(wip, dir, origin, cli);
    runner.runJob('run', dispatch);
    assert.throws(
      () => runner.runJob('publish', dispatch),
      /step "Open the pull request" failed[\s\S]*US-001 does not pass after the agent's run: no pull request opened; its commits are on ralph\/demo-US-001/,
    );
    assert.equal(git(origin, 'log', '-1', '--format=%s', `${FEATURE}-US-001`), 'wip: US-001');
    assert.deepEqual(runner.calls().filter((c) => c.args[1] === 'create'), []);
  });

  it('publish: a branch left by an earlier run of the story (no pull request) is replaced, and the feature branch moving meanwhile does not matter', () => {
    const { dir, origin, seed, cli } = scratch();
    git(seed, 'checkout', '-q', '-b', `${FEATURE}-US-001`);
    git(seed, 'commit', '-q', '--allow-empty', '-m', 'wip: an earlier run that failed');
    git(seed, 'push', '-q', 'origin', `${FEATURE}-US-001`);
    git(seed, 'checkout', '-q', FEATURE);
    const runner = localRunner(workflow, dir, origin, cli);
    runner.runJob('run', dispatch);
    // Another story merges into the feature branch before this one's publish job starts.
    writeFileSync(path.join(seed, 'other.txt'), 'other\n');
    git(seed, 'add', 'other.txt');
    git(seed, 'commit', '-q', '-m', 'Merge another story');
    git(seed, 'push', '-q', 'origin', FEATURE);
    runner.runJob('publish', dispatch);
    assert.equal(git(origin, 'log', '-1', '--format=%s', `${FEATURE}-US-001`), 'feat: US-001 - Sign in');
    assert.ok(runner.calls().some((c) => c.args[1] === 'create'), 'the pull request is opened');
  });

  it('publish: the issue it closes and the title come from the feature branch, not from what the agent wrote; the run record brings no text of its own', () => {
    const { dir, origin, cli } = scratch();
    // The agent does the story, then names another issue and another title for it in its commit.
    const sly = renderWorkflow({
      preset: 'custom',
      agentCommand: `node ${JSON.stringify(FAKE)} < \${promptFile} && sed -i -e 's/"issue": 12/"issue": 99/' -e 's/"Sign in"/"Closes #98"/' prd.json && git commit -qam more`,
      prdPath: 'prd.json',
    });
    const runner = localRunner(sly, dir, origin, cli);
    runner.runJob('run', dispatch);
    assert.match(git(runner.workspace, 'show', 'HEAD:prd.json'), /"issue": 99/);
    // And it appends a record of its own, whose text would land in the body.
    const record = { start: '2026-11-26T10:00:00Z', storyId: 'US-001', outcome: 'passed\n\nCloses #97', agent: 'x\nCloses #96', durationMs: 1000, cost: 0.5 };
    appendFileSync(path.join(dir, 'artifacts', 'ralph-story', 'runs.jsonl'), `${JSON.stringify(record)}\n`);
    runner.runJob('publish', dispatch);
    const create = runner.calls().find((c) => c.args[0] === 'pr' && c.args[1] === 'create');
    assert.ok(create);
    assert.equal(create.args[create.args.indexOf('--title') + 1], 'feat: US-001 - Sign in');
    assert.match(create.body ?? '', /^Closes #12\n/);
    assert.doesNotMatch(create.body ?? '', /#9[6-9]/);
    assert.match(create.body ?? '', /\| Cost \| \$0\.50 \|/, 'numbers still reach the body');
  });

  it('advance: one commit touching prd.json only marks the merged story passing, then dispatches the newly ready stories up to max-parallel', () => {
    const { dir, origin, seed, cli } = scratch();
    // The story's pull request merged into the feature branch: its work, without the passes flag,
    // and (its agent's doing) another issue named for the story in prd.json.
    const baseSha = git(origin, 'rev-parse', FEATURE);
    git(seed, 'checkout', '-q', '-b', `${FEATURE}-US-001`);
    writeFileSync(path.join(seed, 'signin.ts'), 'export const signIn = 1;\n');
    writeFileSync(path.join(seed, 'prd.json'), readFileSync(path.join(seed, 'prd.json'), 'utf8').replace('"issue": 12', '"issue": 99'));
    git(seed, 'add', 'signin.ts', 'prd.json');
    git(seed, 'commit', '-q', '-m', 'feat: US-001 - Sign in');
    git(seed, 'checkout', '-q', FEATURE);
    git(seed, 'merge', '-q', '--no-ff', '-m', 'Merge pull request #7', `${FEATURE}-US-001`);
    git(seed, 'push', '-q', 'origin', FEATURE);
    const merged = git(origin, 'rev-parse', FEATURE);

    const runner = localRunner(workflow, dir, origin, cli);
    // US-002 runs already; US-003 and US-004 became ready; max-parallel 2 leaves one slot.
    runner.answer('run-list.json', [
      { displayTitle: 'ralph: US-002', status: 'in_progress', event: 'workflow_dispatch' },
      { displayTitle: 'ralph: US-001', status: 'completed', event: 'workflow_dispatch' },
      { displayTitle: 'ralph advance after #6', status: 'in_progress', event: 'pull_request' },
      // A fork's pull request ran its own copy of the workflow under a story's name.
      { displayTitle: 'ralph: US-003', status: 'in_progress', event: 'pull_request' },
    ]);
    // A fork's pull request from a branch named like US-003's.
    runner.answer('pr-list.json', [{ headRefName: `${FEATURE}-US-003`, isCrossRepository: true }]);
    runner.runJob('advance', {
      'github.event.pull_request.base.ref': FEATURE,
      'github.event.pull_request.head.ref': `${FEATURE}-US-001`,
      'github.event.pull_request.number': '7',
      'github.event.pull_request.base.sha': baseSha,
      'github.token': 'ghs_test',
      "vars.RALPH_MAX_PARALLEL || '3'": '2',
    });

    assert.equal(git(origin, 'rev-parse', `${FEATURE}~1`), merged, 'one commit on top of the merge');
    assert.equal(git(origin, 'show', '--format=', '--name-only', FEATURE), 'prd.json');
    assert.equal(git(origin, 'diff', '--numstat', `${FEATURE}~1`, FEATURE), '1\t1\tprd.json', 'one line changed: a minimal edit');
    assert.match(git(origin, 'show', `${FEATURE}:prd.json`), /"id": "US-001",\n {6}"title": "Sign in",\n {6}"priority": 1,\n {6}"passes": true/);
    const dispatched = runner.calls().filter((c) => c.args[0] === 'workflow' && c.args[1] === 'run');
    assert.deepEqual(
      dispatched.map((c) => c.args),
      [['workflow', 'run', 'ralph.yml', '--ref', FEATURE, '-f', 'story=US-003', '-f', `branch=${FEATURE}`, '-f', 'max-parallel=2']],
    );
    const list = runner.calls().find((c) => c.args[0] === 'run' && c.args[1] === 'list');
    assert.ok(list?.args.includes('--event') && list.args[list.args.indexOf('--event') + 1] === 'workflow_dispatch', 'only dispatched runs are listed');
    // The pull request merged into the feature branch, where "Closes #12" closes nothing: the job closes the issue.
    const close = runner.calls().find((c) => c.args[0] === 'issue' && c.args[1] === 'close');
    assert.deepEqual(close?.args.slice(0, 5), ['issue', 'close', '12', '--reason', 'completed']);
  });

  it('advance: a merged branch that names no story (ralph/demo-fix-typo) marks nothing and does not fail the run', () => {
    const { dir, origin, cli } = scratch();
    const before = git(origin, 'rev-parse', FEATURE);
    const runner = localRunner(workflow, dir, origin, cli);
    runner.answer('run-list.json', []);
    runner.runJob('advance', {
      'github.event.pull_request.base.ref': FEATURE,
      'github.event.pull_request.head.ref': `${FEATURE}-fix-typo`,
      'github.event.pull_request.number': '9',
      'github.event.pull_request.base.sha': before,
      'github.token': 'ghs_test',
      "vars.RALPH_MAX_PARALLEL || '3'": '3',
    });
    assert.equal(git(origin, 'rev-parse', FEATURE), before, 'no commit');
    assert.deepEqual(runner.calls().filter((c) => c.args[0] === 'issue'), [], 'no issue closed');
    assert.deepEqual(
      runner.calls().filter((c) => c.args[0] === 'workflow').map((c) => c.args[6]),
      ['story=US-001'],
      'the ready stories are still dispatched',
    );
  });

  it('advance: a story that passes already makes no commit; a full house dispatches nothing', () => {
    const { dir, origin, seed, cli } = scratch();
    const prd = readFileSync(path.join(seed, 'prd.json'), 'utf8').replace('"passes": false', '"passes": true');
    writeFileSync(path.join(seed, 'prd.json'), prd);
    git(seed, 'commit', '-q', '-am', 'feat: US-001 - Sign in');
    git(seed, 'push', '-q', 'origin', FEATURE);
    const before = git(origin, 'rev-parse', FEATURE);
    const runner = localRunner(workflow, dir, origin, cli);
    runner.answer('run-list.json', [{ displayTitle: 'ralph: US-002', status: 'queued' }, { displayTitle: 'ralph: US-003', status: 'in_progress' }]);
    runner.runJob('advance', {
      'github.event.pull_request.base.ref': FEATURE,
      'github.event.pull_request.head.ref': `${FEATURE}-US-001`,
      'github.event.pull_request.number': '8',
      'github.event.pull_request.base.sha': before,
      'github.token': 'ghs_test',
      "vars.RALPH_MAX_PARALLEL || '3'": '2',
    });
    assert.equal(git(origin, 'rev-parse', FEATURE), before);
    assert.deepEqual(runner.calls().filter((c) => c.args[0] === 'workflow'), []);
  });
});
