/** The preflight of a run (issue 18 item 2): what makes a run fail, found before it changes anything. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { noAgentFoundMessage, getPreset, type PathLookup, presetPrograms, presetsOnPath, terminalSearchPath } from '../../src/core/agents/presets';
import { planAgentCommand } from '../../src/core/loop/iteration';
import { LoopController, type RunStep } from '../../src/core/loop/loop';
import { type PreflightInput, preflightProblems, workspaceProblems } from '../../src/core/loop/preflight';
import { branchNameProblem } from '../../src/core/parallel/names';
import { analyzePrd } from '../../src/core/prd/index';
import { makePrd } from './helpers';

const vars = { promptFile: '/ws/.ralph/prompts/p.md', storyId: 'US-1', workspaceFolder: '/ws' };
const onPath = (names: string[]): Omit<PathLookup, 'cwd'> => ({ path: '/bin:/usr/bin', platform: 'posix', exists: (p) => names.some((n) => p === `/usr/bin/${n}`) });
const plan = (presetId: string, command = '', found: string[] = ['claude']) =>
  planAgentCommand({ presetId, command, shell: 'posix', exists: () => false, vars, lookup: onPath(found), renderStream: { argv: ['node', '/ext/dist/cli.js', 'render-stream'] } });

const prd = analyzePrd(makePrd([{ id: 'US-1' }, { id: 'US-2', blockedBy: ['US-1'] }]));
const step: RunStep = { kind: 'run', storyId: 'US-1', storyTitle: 'Story US-1', iteration: 1, maxIterations: 1 };

function input(over: Partial<PreflightInput> = {}): PreflightInput {
  return {
    trusted: true,
    scheme: 'file',
    folderName: 'demo',
    prdLabel: 'prd.json',
    prd,
    step,
    agent: plan('claude'),
    git: { branch: 'main' },
    manageBranch: true,
    ...over,
  };
}

const kinds = (i: PreflightInput): string[] => preflightProblems(i).map((p) => p.kind);

describe('preflight: the problems a run would meet, before it changes anything', () => {
  it('a trusted folder on disk, a runnable story, the agent on PATH and git on a branch: no problem', () => {
    assert.deepEqual(preflightProblems(input()), []);
  });

  it('an untrusted or remote folder is refused first, and nothing else is asked', () => {
    assert.deepEqual(kinds(input({ trusted: false, agent: plan('claude', '', []) })), ['untrusted']);
    assert.deepEqual(kinds(input({ scheme: 'vscode-vfs' })), ['not-on-disk']);
    assert.match(workspaceProblems({ trusted: true, scheme: 'vscode-vfs', folderName: 'remote' })[0].message, /only in folders on disk; remote is a vscode-vfs: folder/);
  });

  it('a preset whose program is not on PATH: agent-missing, naming the program, the install command and the preset setting', () => {
    const [p] = preflightProblems(input({ agent: plan('claude', '', []) }));
    assert.equal(p.kind, 'agent-missing');
    assert.equal(p.setting, 'ralph.agent.preset');
    assert.match(p.message, /Claude Code \("claude"\) was not found on PATH\. Install it \(npm install -g @anthropic-ai\/claude-code\)/);
  });

  it('a custom command whose program is missing or whose template is unusable names ralph.agent.command', () => {
    const missing = preflightProblems(input({ agent: plan('custom', 'my-agent < ${promptFile}') }));
    assert.deepEqual(missing.map((p) => [p.kind, p.setting]), [['agent-missing', 'ralph.agent.command']]);
    assert.match(missing[0].message, /"my-agent" was not found on PATH/);
    const bad = preflightProblems(input({ agent: plan('custom', 'my-agent "${promptFile}') }));
    assert.deepEqual(bad.map((p) => [p.kind, p.setting]), [['agent-command', 'ralph.agent.command']]);
    const empty = preflightProblems(input({ agent: plan('custom', '') }));
    assert.deepEqual(empty.map((p) => [p.kind, p.setting]), [['agent-command', 'ralph.agent.command']]);
    const unknown = preflightProblems(input({ agent: plan('gpt') }));
    assert.deepEqual(unknown.map((p) => [p.kind, p.setting]), [['agent-command', 'ralph.agent.preset']]);
  });

  it('Run Story on a story that is no longer in prd.json: the loop would pick another one, the preflight says so', () => {
    const loop = new LoopController({ maxIterations: 1, noProgressLimit: 2, failureLimit: 2, firstStory: 'US-9' });
    const chosen = loop.nextStep(prd);
    assert.equal(chosen.kind, 'run');
    const problems = preflightProblems(input({ step: chosen as RunStep, requestedStory: 'US-9' }));
    assert.deepEqual(problems.map((p) => p.kind), ['story-missing']);
    assert.match(problems[0].message, /US-9 is not in prd\.json/);
    assert.deepEqual(preflightProblems(input({ requestedStory: 'US-1' })), []);
  });

  it('a story without an id of its own cannot be run (the agent finds its story by id)', () => {
    const text = JSON.stringify({ branchName: 'ralph/x', userStories: [{ title: 'No id', priority: 1, passes: false, acceptanceCriteria: ['a'] }] });
    const a = analyzePrd(text);
    const s = a.doc.stories[0];
    assert.ok(s.idDerived, 'the reader derives an id');
    const problems = preflightProblems(input({ prd: a, step: { ...step, storyId: s.id, storyTitle: s.title } }));
    assert.deepEqual(problems.map((p) => p.kind), ['story-unrunnable']);
  });

  it('git: a merge or rebase under way, a detached HEAD where the agent commits on it, a branchName git refuses', () => {
    assert.deepEqual(kinds(input({ git: { branch: 'main', operation: 'rebase' } })), ['git-busy']);
    // With a branch to check out, a detached HEAD does not matter: the run checks the branch out.
    assert.deepEqual(kinds(input({ git: { branch: undefined } })), []);
    const detached = preflightProblems(input({ git: { branch: undefined }, manageBranch: false }));
    assert.deepEqual(detached.map((p) => [p.kind, p.setting]), [['git-detached', 'ralph.git.manageBranch']]);
    const noBranchName = analyzePrd(makePrd([{ id: 'US-1' }], { branchName: undefined }));
    assert.deepEqual(kinds(input({ prd: noBranchName, git: { branch: undefined } })), ['git-detached']);
    const spaced = analyzePrd(makePrd([{ id: 'US-1' }], { branchName: 'ralph/my feature' }));
    const [bad] = preflightProblems(input({ prd: spaced }));
    assert.equal(bad.kind, 'branch-name');
    assert.match(bad.message, /"ralph\/my feature" in prd\.json is not a valid git branch name: it contains a space/);
    // Not a repository: the run skips its git steps, as before.
    assert.deepEqual(kinds(input({ git: undefined, prd: spaced })), []);
  });

  it('every problem is listed at once (agent, files and git), not one per attempt', () => {
    assert.deepEqual(kinds(input({ agent: plan('claude', '', []), filesProblem: '.ralph leads outside', git: { branch: 'main', operation: 'merge' } })), ['agent-missing', 'files', 'git-busy']);
  });

  it('branchNameProblem agrees with `git check-ref-format --branch`', () => {
    const names = ['ralph/user-auth', 'feature', 'a/b/c', 'my feature', 'a..b', 'a~1', 'a^', 'a:b', 'a?', 'a*', 'a[b', 'a\\b', '-x', 'a/', '/a', 'a.', 'a.lock', 'a/.b', 'a//b', 'a@{b', 'a@b', 'ünïcode', 'tab\there', ''];
    for (const name of names) {
      let gitOk = true;
      try {
        execFileSync('git', ['check-ref-format', '--branch', name], { stdio: 'ignore' });
      } catch {
        gitOk = false;
      }
      assert.equal(branchNameProblem(name) === undefined, gitOk, `${JSON.stringify(name)}: git says ${gitOk ? 'valid' : 'invalid'}, we say ${branchNameProblem(name) ?? 'valid'}`);
    }
    // `--branch` reads "@" as HEAD's branch; as the name of a new branch git refuses it.
    assert.equal(branchNameProblem('@'), 'it is "@"');
  });
});

describe('the agent chooser\'s facts: presets on PATH, the terminal\'s PATH', () => {
  it('offers the presets whose program is found, with where; ralphSh only beside a ralph.sh; never custom', () => {
    const lookup: PathLookup = { ...onPath(['amp', 'codex', 'bash']), cwd: '/ws' };
    assert.deepEqual(presetsOnPath(lookup, () => false).map((f) => [f.preset.id, f.path]), [
      ['amp', '/usr/bin/amp'],
      ['codex', '/usr/bin/codex'],
    ]);
    assert.deepEqual(presetsOnPath(lookup, (p) => p === 'ralph.sh').map((f) => f.preset.id), ['amp', 'codex', 'ralphSh']);
    assert.deepEqual(presetsOnPath({ ...onPath([]), cwd: '/ws' }, () => false), []);
  });

  it('when none is found, the message names every program looked for and the configured agent\'s install command', () => {
    const claude = getPreset('claude');
    assert.ok(claude);
    const m = noAgentFoundMessage(claude, presetPrograms(() => false));
    assert.match(m, /looked for "claude", "amp", "codex", "copilot"\. Install Claude Code \(npm install -g @anthropic-ai\/claude-code\)/);
    assert.doesNotMatch(m, /"bash"/, 'bash is looked for only beside a ralph.sh');
    assert.match(m, /ralph\.agent\.command/);
    assert.ok(claude.installUrl?.startsWith('https://'));
  });

  it('the terminal\'s PATH: terminal.integrated.env.* replaces it, ${env:NAME} refers to the host\'s, null removes it', () => {
    const env = { PATH: '/usr/bin', HOME: '/home/me' };
    assert.deepEqual(terminalSearchPath(env, undefined, 'posix'), { path: '/usr/bin', pathExt: undefined });
    assert.equal(terminalSearchPath(env, { PATH: '${env:HOME}/bin:${env:PATH}' }, 'posix').path, '/home/me/bin:/usr/bin');
    assert.equal(terminalSearchPath(env, { PATH: null }, 'posix').path, undefined);
    assert.equal(terminalSearchPath(env, { OTHER: 'x' }, 'posix').path, '/usr/bin');
    // On Windows the names are the same whatever their case (Path, PATH).
    const win = terminalSearchPath({ Path: 'C:\\Windows', PATHEXT: '.EXE' }, { path: 'C:\\tools;${env:PATH}' }, 'win32');
    assert.deepEqual(win, { path: 'C:\\tools;C:\\Windows', pathExt: '.EXE' });
    assert.equal(terminalSearchPath({ Path: '/x' }, undefined, 'posix').path, undefined, 'case matters elsewhere');
  });
});
