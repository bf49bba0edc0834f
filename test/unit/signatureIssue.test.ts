/**
 * A failure signature as a GitHub issue (issue 21): the text (src/core/github/signatureIssue.ts)
 * is read back by a real CommonMark parser (markdown-it, with GitHub's autolinks on) as a user's
 * browser would render it, and the deduplicated filing (src/node/github/signatureIssue.ts) runs
 * through THE client against the local GitHub emulator.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { codeFence, inertText, type SignatureReport, signatureCommentBody, signatureIssueBody, signatureIssueTitle } from '../../src/core/github/signatureIssue';
import { TITLE_LIMIT } from '../../src/core/github/storyIssue';
import { GitHubClient, GitHubError } from '../../src/node/github/client';
import { openSignatureIssue, signatureLabel } from '../../src/node/github/signatureIssue';
import { GitHubEmulator } from '../support/githubEmulator';

interface MdToken {
  readonly type: string;
  readonly content: string;
  readonly info: string;
  readonly children: MdToken[] | null;
}
// markdown-it: a CommonMark parser (with raw HTML and linkify, GitHub's bare-URL autolinks, on), as an oracle independent of the builder.
const markdown = (createRequire(__filename)('markdown-it') as (o: object) => { parse(src: string, env: object): MdToken[] })({ html: true, linkify: true });

/** What renders as plain text (no code): the words a mention or a reference would be read from. */
function proseOf(md: string): string[] {
  const out: string[] = [];
  for (const t of markdown.parse(md, {})) {
    for (const c of t.children ?? []) {
      assert.notEqual(c.type, 'link_open', `a link in ${JSON.stringify(md)}`);
      // the one tag we write ourselves: the footer's <sub>
      assert.ok(c.type !== 'html_inline' || /^<\/?sub>$/.test(c.content), `inline HTML in ${JSON.stringify(md)}`);
      if (c.type === 'text') {
        out.push(c.content);
      }
    }
    assert.notEqual(t.type, 'html_block', `an HTML block in ${JSON.stringify(md)}`);
  }
  return out;
}

/** A mention (@user, @org/team) or an issue reference (#12, GH-12) as GitHub reads them in prose. */
const RAW_MENTION = /(?:^|[^\w`])@[A-Za-z0-9]|(?:^|[^\w&])#\d|\bGH-\d/i;

const report = (over: Partial<SignatureReport> = {}): SignatureReport => ({
  storyId: 'US-006',
  signature: "<path>(<n>,<n>): error TS2322: Type '…' is not assignable to type '…'.",
  count: 2,
  errorLines: ["src/api/tasks.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'."],
  label: 'ralph-signature:0123456789',
  ...over,
});

/** Text as a fenced block keeps it: lines ending CR LF read as LF, other control characters dropped. */
const asKept = (s: string): string => s.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');

describe('a failure signature as a GitHub issue (issue 21)', () => {
  it('the title says the story and the signature as text: mentions and references broken, within GitHub\'s 256 characters', () => {
    const title = signatureIssueTitle(report({ signature: 'Error: @octocat broke #12 and GH-3 in `x`' }));
    assert.match(title, /^Ralph: US-006 fails with: Error: @\u200boctocat broke #\u200b12 and GH-\u200b3 in `x`$/);
    assert.doesNotMatch(title, RAW_MENTION);
    assert.equal(signatureIssueTitle(report({ signature: 'x'.repeat(1000) })).length, TITLE_LIMIT);
    assert.equal(signatureIssueTitle(report({ signature: 'a\n\tb\u0007c' })), 'Ralph: US-006 fails with: a bc');
  });

  it('an error line that is a lone carriage return stays a line of its own (found by the property below: seed -426551886)', () => {
    const fences = markdown.parse(signatureIssueBody(report({ errorLines: ['\r', '`'] })), {}).filter((t) => t.type === 'fence');
    assert.equal(fences[1].content, '\n\n`\n');
  });

  it('the body: the story, the count, the signature and the last error lines in fenced blocks, the label named', () => {
    const body = signatureIssueBody(report({ errorLines: ['a ``` b', 'c'] }));
    assert.match(body, /`US-006` failed 2 times in a row with the same failure signature/);
    const fences = markdown.parse(body, {}).filter((t) => t.type === 'fence');
    assert.deepEqual(fences.map((f) => f.content), [`${report().signature}\n`, 'a ``` b\nc\n']);
    assert.match(body, /ralph-signature:0123456789/);
    // a comment on the issue says it again, with the same blocks
    const comment = signatureCommentBody(report({ count: 5 }));
    assert.match(comment, /Failed again: `US-006`, 5 times in a row/);
    assert.deepEqual(markdown.parse(comment, {}).filter((t) => t.type === 'fence').map((f) => f.content), [`${report().signature}\n`, `${report().errorLines[0]}\n`]);
  });

  it('any signature, error lines and story id: each fence holds exactly its text (never closed early) and the prose mentions and links nobody (property)', () => {
    const hostile = fc.oneof(
      fc.string({ maxLength: 300, unit: 'binary' }),
      fc.array(fc.constantFrom('`', '```', '````', '~~~', '@', '@octocat', '#1', 'GH-2', ' ', '\n', '\r\n', '<b>', '[x](http://e.x)', 'https://evil.example', '\\', '*', '_', '|', '&#35;1', '\u0000'), { maxLength: 40 }).map((a) => a.join('')),
    );
    fc.assert(
      fc.property(hostile, fc.array(hostile, { maxLength: 5 }), hostile, fc.integer({ min: 2, max: 1000 }), (signature, errorLines, storyId, count) => {
        const r = report({ signature, errorLines, storyId: storyId.trim() === '' ? 'US-1' : storyId, count });
        for (const md of [signatureIssueBody(r), signatureCommentBody(r)]) {
          const fences = markdown.parse(md, {}).filter((t) => t.type === 'fence');
          const lines = r.errorLines.map(asKept).join('\n');
          assert.deepEqual(
            fences.map((f) => f.content),
            [`${asKept(r.signature)}\n`, ...(lines.trim() === '' ? [] : [`${lines}\n`])],
            md,
          );
          for (const text of proseOf(md)) {
            assert.doesNotMatch(text, RAW_MENTION, md);
          }
        }
        assert.doesNotMatch(signatureIssueTitle(r), RAW_MENTION);
      }),
      { numRuns: 400 },
    );
  });

  it('a fence is longer than any backtick run in its text; inert text breaks every mention', () => {
    assert.equal(codeFence('no ticks').fence, '```');
    assert.equal(codeFence('one ```` four').fence, '`````');
    assert.equal(inertText('@a #1 gh-2 a@b.c'), '@\u200ba #\u200b1 gh-\u200b2 a@\u200bb.c');
  });
});

describe('filing a signature issue through the GitHub client (issue 21, against the emulator)', () => {
  let gh: GitHubEmulator;
  let client: GitHubClient;
  beforeEach(async () => {
    gh = await new GitHubEmulator({ lifetimeMs: 60_000, maxRequests: 200 }).start();
    client = new GitHubClient({ apiUrl: gh.apiUrl, owner: gh.owner, repo: gh.repo, writeIntervalMs: 0, retries: 0 });
  });
  afterEach(async () => {
    await gh.stop();
  });

  it('the label is the signature\'s short hash: the same signature the same label, another another', () => {
    const a = signatureLabel(report().signature);
    assert.match(a, /^ralph-signature:[0-9a-f]{10}$/);
    assert.equal(signatureLabel(report().signature), a);
    assert.notEqual(signatureLabel('Error: something else'), a);
  });

  it('the first time creates the issue with its label; the next time comments on the open issue instead of opening another; a closed one is not commented on', async () => {
    const r = report({ label: signatureLabel(report().signature) });
    const first = await openSignatureIssue(client, r);
    assert.equal(first.kind, 'created');
    const issue = gh.issues.get(first.number);
    assert.ok(issue);
    assert.equal(issue.title, signatureIssueTitle(r));
    assert.equal(issue.body, signatureIssueBody(r));
    assert.deepEqual(issue.labels, [r.label]);
    assert.match(first.url ?? '', new RegExp(`/issues/${first.number}$`));

    const again = await openSignatureIssue(client, { ...r, count: 3 });
    assert.deepEqual([again.kind, again.number], ['commented', first.number]);
    assert.equal(gh.issues.size, 1, 'no second issue');
    assert.deepEqual(issue.comments.map((c) => c.body), [signatureCommentBody({ ...r, count: 3 })]);

    issue.state = 'closed';
    const reopened = await openSignatureIssue(client, r);
    assert.equal(reopened.kind, 'created');
    assert.notEqual(reopened.number, first.number);
    assert.equal(issue.comments.length, 1, 'the closed issue got nothing');
  });

  it('a GitHub that refuses says so as a GitHubError, never a raw error', async () => {
    gh.faults.push({ path: /\/issues$/, method: 'POST', fault: { kind: 'permission', accepted: 'issues=write' } });
    await assert.rejects(openSignatureIssue(client, report()), (e: Error) => e instanceof GitHubError && /the token needs Issues: write/.test(e.message));
    assert.equal(gh.issues.size, 0);
  });
});
