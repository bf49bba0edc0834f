/**
 * The plan that reaches the agent's prompt, read through the emulator (issue 16, item 7): a
 * commenter cannot point it at .env, .git/config, a non-markdown file or a dotfile, an untrusted
 * author cannot link it at all, a URL hidden in an HTML comment never picks it, and the prompt
 * names the comment that linked it.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { issuePlanSection } from '../../src/core/artifacts/promptSection';
import { readIssuePlan, readIssues } from '../../src/node/github/artifacts';
import { GitHubClient } from '../../src/node/github/client';
import { GitHubEmulator } from '../support/githubEmulator';

const TOKEN = 'ghp_emulatorTrustToken0123456789';
const repo = { owner: 'acme', repo: 'taskflow', host: 'github.com' };
const blob = (p: string): string => `https://github.com/acme/taskflow/blob/main/${p}`;
const PLAN = 'thoughts/shared/plans/2026-11-16-GH-0042-p.md';

describe('the plan for the prompt under the trust rules (emulator)', function () {
  this.timeout(30_000);
  let gh: GitHubEmulator;
  let root: string;
  let client: GitHubClient;

  beforeEach(async () => {
    gh = await new GitHubEmulator({ token: TOKEN }).start();
    gh.addIssue(42, 'Task priorities');
    root = mkdtempSync(path.join(tmpdir(), 'ralph-trust-'));
    const files: Record<string, string> = {
      [PLAN]: '# The real plan\n',
      '.env': 'SECRET=hunter2\n',
      '.git/config': '[remote "origin"]\n\turl = https://token@github.com/acme/taskflow\n',
      'thoughts/shared/plans/notes.txt': 'not markdown\n',
      'thoughts/shared/plans/.hidden.md': '# hidden\n',
      'src/app.md': '# outside the artifact folders\n',
    };
    for (const [f, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      writeFileSync(path.join(root, f), text);
    }
    client = new GitHubClient({ token: TOKEN, apiUrl: gh.apiUrl, owner: 'acme', repo: 'taskflow', timeoutMs: 2000, retryAfterBaseMs: 10 });
  });

  afterEach(async () => {
    await gh.stop();
    rmSync(root, { recursive: true, force: true });
  });

  async function planOf(): Promise<{ plan: Awaited<ReturnType<typeof readIssuePlan>>; warnings: string }> {
    const [read] = await readIssues({ root, repo, client, issues: [42] });
    return { plan: await readIssuePlan(root, [read.result]), warnings: read.result.warnings.join('\n') };
  }

  for (const target of ['.env', '.git/config', 'thoughts/shared/plans/notes.txt', 'thoughts/shared/plans/.hidden.md', 'src/app.md']) {
    it(`an OWNER's link to ${target} never reaches the prompt, and the issue says why`, async () => {
      gh.addComment(42, `## Implementation Plan\n\n${blob(target)}`);
      const { plan, warnings } = await planOf();
      // The plan found by its file name is still there; the linked file is not.
      assert.equal(plan?.planPath, PLAN, `no plan from ${target}`);
      assert.equal(plan.linkedBy, undefined, 'the plan is the one found by name, not linked');
      assert.ok(!/hunter2|token@|not markdown|# hidden|outside the artifact/.test(plan.planHead));
      assert.match(warnings, new RegExp(`${target.replace(/\./g, '\\.')}, which is not read`));
    });
  }

  it('a plan linked through a symbolic link to .env is refused (the real path counts)', async () => {
    symlinkSync(path.join(root, '.env'), path.join(root, 'thoughts/shared/plans/2026-11-17-GH-0042-link.md'));
    gh.addComment(42, `## Implementation Plan\n\n${blob('thoughts/shared/plans/2026-11-17-GH-0042-link.md')}`);
    const { plan } = await planOf();
    assert.notEqual(plan?.planPath, 'thoughts/shared/plans/2026-11-17-GH-0042-link.md', 'the linked symbolic link is not the plan');
    assert.ok(!plan?.planHead.includes('hunter2'), 'the secret never reaches the prompt');
    // Named directly (found by its name, the only plan), the link is refused too.
    rmSync(path.join(root, PLAN));
    const again = await planOf();
    assert.ok(!again.plan?.planHead.includes('hunter2'), 'the secret never reaches the prompt');
    assert.equal(again.plan, undefined);
  });

  it("a NONE author's link to a real plan is not followed: no plan, a warning", async () => {
    gh.addComment(42, `## Implementation Plan\n\n${blob(PLAN)}`, { login: 'drive-by', association: 'NONE' });
    const [read] = await readIssues({ root, repo, client, issues: [42] });
    assert.equal(read.result.artifacts.find((a) => a.kind === 'plan')?.status, 'on-disk', 'the file is only found by its name');
    assert.match(read.result.warnings.join('\n'), /@drive-by \(NONE\) was not followed/);
  });

  it('the newest comment by a CONTRIBUTOR does not replace the OWNER link', async () => {
    gh.addComment(42, `## Implementation Plan\n\n${blob(PLAN)}`);
    gh.addComment(42, `## Implementation Plan\n\n${blob('.env')}`, { login: 'helper', association: 'CONTRIBUTOR' });
    const { plan } = await planOf();
    assert.equal(plan?.planPath, PLAN);
    assert.match(plan?.planHead ?? '', /The real plan/);
  });

  it('a URL hidden in an HTML comment never picks the file', async () => {
    gh.addComment(42, `## Implementation Plan\n<!-- ${blob('.env')} -->\n\n${blob(PLAN)}`);
    const { plan } = await planOf();
    assert.equal(plan?.planPath, PLAN);
    assert.ok(!plan.planHead.includes('hunter2'));
  });

  it('the prompt names the comment that linked the plan: its URL and author', async () => {
    const c = gh.addComment(42, `## Implementation Plan\n\n${blob(PLAN)}`, { login: 'lead-dev', association: 'MEMBER' });
    const { plan } = await planOf();
    assert.equal(plan?.linkedBy?.commentUrl, c.html_url);
    const section = issuePlanSection(plan!);
    assert.ok(section.includes(`Linked by @lead-dev (MEMBER) in ${c.html_url}`), section);
  });
});
