/**
 * What a commenter can and cannot make us do (issue 16, item 7): the pure rules. A document that
 * reaches the agent's prompt is a regular .md file under the artifact folders, not a dotfile,
 * not under .git/, linked by a comment of a trusted author (OWNER, MEMBER, COLLABORATOR by
 * default, ralph.github.trustedAuthors).
 */
import * as assert from 'node:assert/strict';
import { issueArtifacts } from '../../src/core/artifacts/issueArtifacts';
import type { IssueComment } from '../../src/core/artifacts/protocol';
import { planSources } from '../../src/core/artifacts/promptSection';
import { DEFAULT_TRUST, refusedDocument, trustRulesFrom, untrustedAuthor } from '../../src/core/artifacts/trust';

const repo = { owner: 'acme', repo: 'taskflow', host: 'github.com' };
const blob = (p: string): string => `https://github.com/acme/taskflow/blob/main/${p}`;
const PLAN = 'thoughts/shared/plans/2026-11-16-GH-0042-p.md';
const comment = (id: number, body: string, association: string | undefined, login = 'someone'): IssueComment => ({
  id,
  body,
  created_at: new Date(Date.UTC(2026, 10, 16, 10, id)).toISOString(),
  html_url: `https://github.com/acme/taskflow/issues/42#issuecomment-${id}`,
  user: { login },
  author_association: association,
});

describe('which documents may reach a prompt', () => {
  it('refuses dotfiles, .git/, non-markdown and anything outside the artifact folders, saying why', () => {
    for (const p of ['.env', '.git/config', 'thoughts/shared/.git/plan.md', 'thoughts/shared/plans/.hidden.md', 'thoughts/shared/plans/notes.txt', 'thoughts/shared/plans/plan.md.sh', 'src/plan.md', 'README.md', 'thoughts/sharedX/plan.md']) {
      const why = refusedDocument(p, DEFAULT_TRUST);
      assert.ok(why, `${p} must be refused`);
      assert.match(why, /\.md|dot|\.git|thoughts\/shared/, why);
    }
    assert.equal(refusedDocument(PLAN, DEFAULT_TRUST), undefined);
    assert.equal(refusedDocument('thoughts/shared/research/r.MD', DEFAULT_TRUST), undefined);
  });

  it('the artifact folders setting adds folders; entries that leave the workspace or hide are ignored with a note', () => {
    const r = trustRulesFrom(undefined, ['docs/plans/', './specs', '../outside', '/etc', '.secret', 'a/../../b', 42]);
    assert.deepEqual(r.rules.artifactFolders, ['thoughts/shared', 'docs/plans', 'specs']);
    assert.equal(r.notes.length, 5, r.notes.join('\n'));
    assert.equal(refusedDocument('docs/plans/p.md', r.rules), undefined);
    assert.ok(refusedDocument('docs/p.md', r.rules));
  });
});

describe('which authors may link a document', () => {
  it('OWNER, MEMBER and COLLABORATOR by default; anyone else, or no association, is refused with the reason', () => {
    for (const a of ['OWNER', 'MEMBER', 'COLLABORATOR']) {
      assert.equal(untrustedAuthor({ author: 'x', authorAssociation: a }, DEFAULT_TRUST), undefined, a);
    }
    for (const a of ['CONTRIBUTOR', 'NONE', 'FIRST_TIMER', undefined]) {
      assert.match(untrustedAuthor({ author: 'mallory', authorAssociation: a }, DEFAULT_TRUST) ?? '', /@mallory .*not .*OWNER, MEMBER or COLLABORATOR.*ralph\.github\.trustedAuthors/, String(a));
    }
  });

  it('the setting narrows (OWNER only) or widens (a login with @, CONTRIBUTOR)', () => {
    const narrow = trustRulesFrom(['owner'], undefined).rules;
    assert.ok(untrustedAuthor({ author: 'm', authorAssociation: 'MEMBER' }, narrow));
    assert.equal(untrustedAuthor({ author: 'o', authorAssociation: 'OWNER' }, narrow), undefined);
    const wide = trustRulesFrom(['OWNER', '@release-bot', 'CONTRIBUTOR'], undefined).rules;
    assert.equal(untrustedAuthor({ author: 'release-bot', authorAssociation: 'NONE' }, wide), undefined);
    assert.equal(untrustedAuthor({ author: 'c', authorAssociation: 'CONTRIBUTOR' }, wide), undefined);
    assert.ok(untrustedAuthor({ author: 'n', authorAssociation: 'NONE' }, wide));
  });
});

describe("an issue's artifacts under the trust rules", () => {
  it('a newer comment by an untrusted author neither wins nor links: the trusted link stays, and a warning says why', () => {
    const r = issueArtifacts({
      number: 42,
      comments: [comment(1, `## Implementation Plan\n\n${blob(PLAN)}`, 'MEMBER', 'lead'), comment(2, `## Implementation Plan\n\n${blob('thoughts/shared/plans/evil.md')}`, 'NONE', 'mallory')],
      disk: [],
      repo,
      isLocalFile: () => true,
    });
    const plan = r.artifacts.filter((a) => a.kind === 'plan');
    assert.deepEqual(plan.map((a) => [a.status, a.path, a.author]), [['linked', PLAN, 'lead']]);
    assert.match(r.warnings.join('\n'), /Plan comment https:\/\/github\.com\/acme\/taskflow\/issues\/42#issuecomment-2 by @mallory \(NONE\) was not followed: .*OWNER, MEMBER or COLLABORATOR/);
  });

  it('an untrusted link alone leaves the plan missing; the prompt gets no plan from it', () => {
    const r = issueArtifacts({ number: 42, comments: [comment(2, `## Implementation Plan\n\n${blob(PLAN)}`, 'CONTRIBUTOR', 'mallory')], disk: [], repo, isLocalFile: () => true });
    assert.equal(r.artifacts.find((a) => a.kind === 'plan')?.status, 'missing');
    assert.equal(planSources([r]), undefined);
  });

  it('a trusted link to a refused document is not a local file: a warning says why', () => {
    for (const target of ['.env', '.git/config', 'src/extension.ts']) {
      const r = issueArtifacts({ number: 42, comments: [comment(3, `## Implementation Plan\n\n${blob(target)}`, 'OWNER', 'lead')], disk: [], repo, isLocalFile: () => true });
      const plan = r.artifacts.find((a) => a.kind === 'plan');
      assert.equal(plan?.path, undefined, target);
      assert.match(r.warnings.join('\n'), new RegExp(`${target.replace(/\./g, '\\.')}.*not read`), target);
      assert.equal(planSources([r]), undefined, target);
    }
  });
});

describe('a document shown but never given to the agent', () => {
  const NOTES = 'thoughts/shared/plans/2026-11-16-GH-0042-notes.txt';
  const disk = [{ kind: 'plan' as const, path: NOTES }];
  const assemble = (comments: IssueComment[] | undefined) =>
    issueArtifacts({ number: 42, comments, disk, repo, isLocalFile: (p) => p === NOTES });

  it('a trusted link to a non-markdown file the fallback by name found stays linked (self-heal has nothing to offer), and never reaches the prompt', () => {
    const issue = assemble([comment(1, `## Implementation Plan\n\n${blob(NOTES)}`, 'OWNER')]);
    const plan = issue.artifacts.find((a) => a.kind === 'plan');
    assert.equal(plan?.status, 'linked');
    assert.equal(plan?.path, NOTES);
    assert.match(plan?.promptRefusal ?? '', /not a markdown/);
    assert.ok(!issue.artifacts.some((a) => a.status === 'on-disk'), 'not also "on disk, not linked"');
    assert.ok(issue.warnings.some((w) => w.includes(`${NOTES} is linked, but never given to the agent`)), issue.warnings.join('\n'));
    assert.equal(planSources([issue]), undefined);
  });

  it('found by name only (no comment), a non-markdown plan is on disk and never reaches the prompt either', () => {
    const issue = assemble(undefined);
    assert.equal(issue.artifacts.find((a) => a.kind === 'plan')?.status, 'on-disk');
    assert.equal(planSources([issue]), undefined);
  });
});
