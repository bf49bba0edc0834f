/**
 * `ralph-workbench github workflow` (the file written, edits kept unless --force) and
 * `ralph-workbench github dispatch` (its arguments, and what it asks of GitHub through the dispatch
 * port: a recording fake here; its end-to-end test against the GitHub test server follows the
 * client's methods).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseDispatchArgs, runDispatchCommand } from '../../src/cli/github/dispatchCommand';
import { runWorkflowCommand } from '../../src/cli/github/workflowCommand';
import type { CliIo } from '../../src/cli/io';
import { WORKFLOW_PATH } from '../../src/core/github/workflow';
import type { DispatchPort, DispatchPull, DispatchRun } from '../../src/node/github/dispatch';
import { GitHubError } from '../../src/node/github/errors';
import { makePrd } from './helpers';

function capture(): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { io: { stdout: (s) => (out += s), stderr: (s) => (err += s), readFile: (p) => readFileSync(p) }, out: () => out, err: () => err };
}

describe('ralph-workbench github workflow / dispatch', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  function folder(settings?: Record<string, unknown>): string {
    const root = mkdtempSync(path.join(tmpdir(), 'ralph-ghcli-'));
    dirs.push(root);
    writeFileSync(
      path.join(root, 'prd.json'),
      makePrd(
        [
          { id: 'US-001', issue: 11 },
          { id: 'US-002', issue: 12 },
          { id: 'US-003', issue: 13 },
          { id: 'US-004' },
        ],
        { branchName: 'ralph/demo' },
      ),
    );
    if (settings) {
      mkdirSync(path.join(root, '.vscode'));
      writeFileSync(path.join(root, '.vscode', 'settings.json'), JSON.stringify(settings));
    }
    return root;
  }

  describe('workflow', () => {
    it('writes ralph.yml for the workspace agent, then keeps a file the user edited unless --force', async () => {
      const root = folder({ 'ralph.agent.preset': 'codex' });
      const file = path.join(root, WORKFLOW_PATH);
      const first = capture();
      assert.equal(await runWorkflowCommand(['github', 'workflow'], first.io, root), 0, first.err());
      const written = readFileSync(file, 'utf8');
      assert.match(written, /^# ralph-workbench: generated [0-9a-f]{12}\n/);
      assert.match(written, /npm install -g @openai\/codex/);
      assert.match(first.out(), /add the repository secret OPENAI_API_KEY/);

      const again = capture();
      assert.equal(await runWorkflowCommand(['github', 'workflow'], again.io, root), 0);
      assert.match(again.out(), /is up to date/);

      // The agent changed: our unedited file is replaced.
      writeFileSync(path.join(root, '.vscode', 'settings.json'), JSON.stringify({ 'ralph.agent.preset': 'amp' }));
      assert.equal(await runWorkflowCommand(['github', 'workflow'], capture().io, root), 0);
      assert.match(readFileSync(file, 'utf8'), /@sourcegraph\/amp/);

      // The user edits it: kept, and said so.
      const edited = readFileSync(file, 'utf8').replace('timeout-minutes: 120', 'timeout-minutes: 30');
      writeFileSync(file, edited);
      writeFileSync(path.join(root, '.vscode', 'settings.json'), JSON.stringify({ 'ralph.agent.preset': 'claude' }));
      const kept = capture();
      assert.equal(await runWorkflowCommand(['github', 'workflow'], kept.io, root), 1);
      assert.equal(readFileSync(file, 'utf8'), edited);
      assert.match(kept.err(), /kept \.github\/workflows\/ralph\.yml: it was edited since ralph-workbench generated it .* --force to replace/);

      const forced = capture();
      assert.equal(await runWorkflowCommand(['github', 'workflow', '--force'], forced.io, root), 0);
      assert.match(readFileSync(file, 'utf8'), /@anthropic-ai\/claude-code/);
    });

    it('keeps a ralph.yml written by hand (no stamp); --dry-run prints the text and writes nothing', async () => {
      const root = folder();
      mkdirSync(path.join(root, '.github', 'workflows'), { recursive: true });
      writeFileSync(path.join(root, WORKFLOW_PATH), 'name: mine\n');
      assert.equal(await runWorkflowCommand(['github', 'workflow'], capture().io, root), 1);
      const dry = capture();
      assert.equal(await runWorkflowCommand(['github', 'workflow', '--dry-run'], dry.io, root), 0);
      assert.match(dry.out(), /^# ralph-workbench: generated/);
      assert.equal(readFileSync(path.join(root, WORKFLOW_PATH), 'utf8'), 'name: mine\n');
    });

    it('refuses an unknown agent preset with the list of presets', async () => {
      const c = capture();
      assert.equal(await runWorkflowCommand(['github', 'workflow', '--agent', 'gpt'], c.io, folder()), 1);
      assert.match(c.err(), /unknown agent preset "gpt" \(one of claude, amp, codex, copilot, ralphSh, custom\)/);
    });
  });

  describe('dispatch', () => {
    it('reads its arguments and says what is wrong with bad ones', () => {
      const ok = parseDispatchArgs(['github', 'dispatch', '--max-parallel', '4', '--dry-run', '--json', '--assignee', 'Copilot'], '/w');
      assert.deepEqual(ok.args, { root: '/w', maxParallel: 4, dryRun: true, json: true, assignee: 'Copilot', ref: undefined, repo: undefined, apiUrl: undefined });
      assert.equal(parseDispatchArgs(['github', 'dispatch', '--max-parallel', '0'], '/w').error, '--max-parallel needs a whole number of at least 1 (got "0")');
      assert.equal(parseDispatchArgs(['github', 'dispatch', '--max-parallel', 'x'], '/w').error, '--max-parallel needs a whole number of at least 1 (got "x")');
      assert.match(parseDispatchArgs(['github', 'dispatch', '--bogus'], '/w').error ?? '', /Unknown option '--bogus'/);
      assert.equal(parseDispatchArgs(['github', 'dispatch', 'extra'], '/w').error, 'unexpected argument "extra"');
      assert.equal(parseDispatchArgs(['github', 'dispatch', '--assignee', ' '], '/w').error, '--assignee needs a GitHub login');
      assert.equal(parseDispatchArgs(['github', 'dispatch', '--help'], '/w').help, true);
    });

    /** A port that answers from lists and records every write. */
    function fakePort(runs: DispatchRun[] = [], pulls: DispatchPull[] = [], state = 'active'): DispatchPort & { writes: string[] } {
      const writes: string[] = [];
      return {
        writes,
        getWorkflow: async () => ({ id: 1, state, path: WORKFLOW_PATH }),
        listWorkflowRuns: async () => runs,
        listPulls: async () => pulls,
        dispatchWorkflow: async (file, ref, inputs) => void writes.push(`dispatch ${file} ${ref} ${JSON.stringify(inputs)}`),
        addAssignees: async (n, who) => void writes.push(`assign #${n} ${who.join(',')}`),
      };
    }
    const env = { GH_TOKEN: 'ghs_test' };

    it('dispatches the ready published stories up to --max-parallel and reports the others', async () => {
      const root = folder();
      const port = fakePort([{ displayTitle: 'ralph: US-001', status: 'in_progress', htmlUrl: 'https://github.invalid/run/1' }]);
      const c = capture();
      const code = await runDispatchCommand(['github', 'dispatch', '--max-parallel', '2'], c.io, { env, openPort: async () => port }, root);
      assert.equal(code, 0, c.err());
      assert.deepEqual(port.writes, ['dispatch ralph.yml ralph/demo {"story":"US-002","branch":"ralph/demo","max-parallel":"2"}']);
      assert.match(c.out(), /^dispatched US-002 \(#12\)\n/);
      assert.match(c.out(), /US-001 runs on GitHub Actions now/);
      assert.match(c.out(), /US-003 waits for a free slot \(2\/2 runs in flight\)/);
      assert.match(c.out(), /US-004 not published: publish the stories to GitHub first/);
    });

    it('--dry-run --json writes nothing and prints the plan', async () => {
      const port = fakePort();
      const c = capture();
      assert.equal(await runDispatchCommand(['github', 'dispatch', '--dry-run', '--json', '--max-parallel', '1'], c.io, { env, openPort: async () => port }, folder()), 0);
      assert.deepEqual(port.writes, []);
      const json = JSON.parse(c.out()) as { dispatched: { storyId: string; action: string }[]; waits: { storyId: string; reason: string }[]; dryRun: boolean };
      assert.deepEqual(json.dispatched, [{ storyId: 'US-001', issue: 11, action: 'would-dispatch' }]);
      assert.deepEqual(json.waits.map((w) => `${w.storyId}:${w.reason}`), ['US-002:slot-full', 'US-003:slot-full', 'US-004:unpublished']);
      assert.equal(json.dryRun, true);
    });

    it('assigns the issues instead when ralph.github.agentAssignee is set', async () => {
      const port = fakePort();
      const c = capture();
      assert.equal(await runDispatchCommand(['github', 'dispatch', '--max-parallel', '2'], c.io, { env, openPort: async () => port }, folder({ 'ralph.github.agentAssignee': 'Copilot' })), 0, c.err());
      assert.deepEqual(port.writes, ['assign #11 Copilot', 'assign #12 Copilot']);
      assert.match(c.out(), /assigned US-001 \(#11\) to Copilot/);
    });

    it('says what to do: no token, a disabled workflow, a workflow missing from the repository', async () => {
      const none = capture();
      assert.equal(await runDispatchCommand(['github', 'dispatch'], none.io, { env: {}, openPort: async () => fakePort() }, folder()), 1);
      assert.match(none.err(), /no GH_TOKEN or GITHUB_TOKEN: set one to a token that may run workflows \(Actions: write\)/);

      const disabled = capture();
      const port = fakePort([], [], 'disabled_manually');
      assert.equal(await runDispatchCommand(['github', 'dispatch'], disabled.io, { env, openPort: async () => port }, folder()), 1);
      assert.match(disabled.err(), /the workflow ralph\.yml is disabled manually: enable it in the repository's Actions tab/);
      assert.deepEqual(port.writes, []);

      const missing = capture();
      const gone = { ...fakePort(), getWorkflow: async () => Promise.reject(new GitHubError('not-found', 'Not Found', 404)) };
      assert.equal(await runDispatchCommand(['github', 'dispatch'], missing.io, { env, openPort: async () => gone }, folder()), 1);
      assert.match(missing.err(), /no workflow ralph\.yml on its default branch .*\(ralph-workbench github workflow\), commit and push/);
    });

    it('stops at a failed dispatch and names the story (the ones before it landed)', async () => {
      const port = fakePort();
      let n = 0;
      port.dispatchWorkflow = async (_f, _r, inputs) => {
        if (++n === 2) {
          throw new GitHubError('server', 'GitHub answered 502', 502);
        }
        port.writes.push(inputs.story);
      };
      const c = capture();
      assert.equal(await runDispatchCommand(['github', 'dispatch', '--max-parallel', '3'], c.io, { env, openPort: async () => port }, folder()), 1);
      assert.deepEqual(port.writes, ['US-001']);
      assert.match(c.err(), /US-002 was not dispatched: GitHub answered 502/);
    });
  });
});
