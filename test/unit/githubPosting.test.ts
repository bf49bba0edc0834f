/**
 * GitHub posting you can trust (issue 16): exactly one comment per (issue, kind, document)
 * whatever the file name, the server's answers, retries, caching, concurrency or paging; time
 * limits that match what the messages say. Against the local emulator (127.0.0.1 only).
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { runArtifacts } from '../../src/cli/commands/artifacts';
import { ARTIFACT_KINDS, parseArtifactComment, type IssueComment } from '../../src/core/artifacts/protocol';
import { planSelfHeal } from '../../src/core/artifacts/selfHeal';
import { blobUrl, mapArtifactUrl } from '../../src/core/artifacts/url';
import { linkDocument, readIssues, selfHeal } from '../../src/node/github/artifacts';
import { GitHubClient, type GitHubClientOptions, type GitHubError } from '../../src/node/github/client';
import { GitHubEmulator } from '../support/githubEmulator';
import { recordUnhandledRejections } from '../support/unhandled';
import { copyBuiltCli } from './helpers';

const TOKEN = 'ghp_emulatorTestToken0123456789';
const repo = { owner: 'acme', repo: 'taskflow', host: 'github.com' };
const PLAN = 'thoughts/shared/plans/2026-11-16-GH-0042-plan.md';

/** A name that means another file on some OS: refused by the URL mapper by design (see url.ts). */
const nonPortable = (name: string): boolean => name.includes('\\') || /^[a-zA-Z]:$/.test(name);

describe('GitHub posting: the link a self-heal writes reads back as linked', () => {
  const special = ['(', ')', "'", '"', ' ', '!', '_', '.', '*', ',', ';', ':', '?', '#', '%', '~', '[', ']', '<', '>', '`', '\\', '+', '&', '=', '@', '$', 'é', 'ß', '日', 'Ω', '\t', 'a', 'Z', '0', '-'];
  // Any name git allows: no NUL, no `/`, not `.` or `..`; biased to the characters a reader could cut.
  const fileName = fc
    .oneof(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 }), fc.string({ unit: fc.constantFrom(...special), minLength: 1, maxLength: 24 }))
    .filter((s) => !/[/\0]/.test(s) && s !== '.' && s !== '..');

  it('property: parseArtifactComment(selfHealBody(...)) + mapArtifactUrl give the same path for every file name, and a second self-heal plans nothing', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ARTIFACT_KINDS),
        fc.constantFrom('thoughts/shared/research', 'thoughts/shared/plans', 'thoughts/shared/reviews'),
        fc.array(fileName, { minLength: 1, maxLength: 2 }),
        fc.constantFrom('main', 'trunk', 'feature/x', 'release-1.0', 'dev_'),
        (kind, dir, names, ref) => {
          const p = [dir, ...names].join('/');
          const candidate = { kind, path: p, status: 'on-disk' as const };
          const first = planSelfHeal([candidate], [], repo, ref);
          if (names.some(nonPortable)) {
            assert.deepEqual(first, [], 'a link that could not read back is not posted');
            return;
          }
          assert.equal(first.length, 1);
          const comment: IssueComment = { id: 1, body: first[0].body };
          const parsed = parseArtifactComment(comment);
          assert.ok(parsed && 'artifact' in parsed, `parsed: ${JSON.stringify(parsed)}`);
          assert.deepEqual(mapArtifactUrl(parsed.artifact.url ?? '', repo), { local: true, path: p, ref });
          assert.deepEqual(planSelfHeal([candidate], [comment], repo, ref), [], 'nothing to post the second time');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('mapArtifactUrl accepts an encoded dot at the end of a name but never a . or .. segment, encoded or not', () => {
    assert.deepEqual(mapArtifactUrl(blobUrl(repo, 'main', 'thoughts/a./b_'), repo), { local: true, path: 'thoughts/a./b_', ref: 'main' });
    for (const bad of ['%2e', '%2E%2e', '.%2E', '%2e.', '..', '.']) {
      assert.equal(mapArtifactUrl(`https://github.com/acme/taskflow/blob/main/thoughts/${bad}/x.md`, repo).local, false, bad);
    }
  });
});

describe('GitHub posting against the emulator', function () {
  this.timeout(30_000);
  let gh: GitHubEmulator;
  let root: string;
  const unhandled = recordUnhandledRejections();

  const write = (rel: string, text = '# Doc\n'): void => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };

  beforeEach(async () => {
    gh = await new GitHubEmulator({ token: TOKEN }).start();
    gh.addIssue(42, 'Task priorities');
    root = mkdtempSync(path.join(tmpdir(), 'ralph-post-'));
    write(PLAN);
  });

  afterEach(async () => {
    await gh.stop();
    rmSync(root, { recursive: true, force: true });
    assert.deepEqual(unhandled, [], 'no unhandled rejection');
  });

  const client = (o: Partial<GitHubClientOptions> = {}): GitHubClient => new GitHubClient({ token: TOKEN, apiUrl: gh.apiUrl, owner: 'acme', repo: 'taskflow', retryAfterBaseMs: 10, timeoutMs: 2000, ...o });
  const posts = (): number => gh.requests.filter((q) => q.method === 'POST').length;
  const comments = (): string[] => gh.issues.get(42)!.comments.map((c) => c.body);

  async function cli(args: string[], clientOptions = { retryAfterBaseMs: 10, timeoutMs: 2000 }): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await runArtifacts([...args, '--repo', 'acme/taskflow', '--api-url', gh.apiUrl], { stdout: (s) => (out += s), stderr: (s) => (err += s), env: { GH_TOKEN: TOKEN }, cwd: root, clientOptions });
    return { code, out, err };
  }

  async function heal(c: GitHubClient, only?: string): Promise<number> {
    const [read] = await readIssues({ root, repo, client: c, issues: [42] });
    assert.equal(read.result.error, undefined);
    const candidates = read.result.artifacts.filter((a) => a.status === 'on-disk' && (!only || a.path === only));
    return (await selfHeal(c, repo, 42, candidates, { root })).length;
  }

  // 1. File names
  it('self-heal of a document named with ( ) \' spaces, accents and a trailing ! posts once; a second self-heal posts nothing', async () => {
    const odd = "thoughts/shared/plans/GH-0042 plan (v2) l'été!";
    write(odd);
    rmSync(path.join(root, PLAN));
    const first = await cli(['42', '--self-heal']);
    assert.equal(first.code, 0, first.err);
    const second = await cli(['42', '--self-heal']);
    assert.equal(second.code, 0, second.err);
    assert.equal(comments().length, 1, comments().join('\n---\n'));
    assert.match(second.out, /Plan\s+linked\s+thoughts\/shared\/plans\/GH-0042 plan \(v2\) l'été!/);
  });

  it('Link to Issue refuses a name whose link would not read back (a backslash): nothing posted, twice', async () => {
    const odd = 'thoughts/shared/plans/GH-0042 a\\b.md';
    for (let i = 0; i < 2; i++) {
      await assert.rejects(linkDocument(client(), repo, 42, 'plan', odd, { root }), /cannot be linked.*\\/);
    }
    assert.equal(posts(), 0);
  });

  // 2. Broken responses
  const broken: [string, () => void, RegExp][] = [
    [
      'an HTML page',
      () => gh.faults.push({ path: /\/issues\/42\/comments$/, method: 'GET', fault: { kind: 'raw', status: 200, contentType: 'text/html', body: `<html>${'x'.repeat(506)}</html>` } }),
      /GET \/repos\/acme\/taskflow\/issues\/42\/comments: the answer is not JSON \(text\/html, 519 bytes\)/,
    ],
    ['a truncated body', () => gh.faults.push({ path: /\/issues\/42\/comments$/, method: 'GET', fault: { kind: 'truncated' } }), /GET \/repos\/acme\/taskflow\/issues\/42\/comments: the answer was cut off \(4096 bytes promised\)/],
    [
      'JSON that is not a list of comments',
      () => gh.faults.push({ path: /\/issues\/42\/comments$/, method: 'GET', fault: { kind: 'raw', status: 200, contentType: 'application/json', body: '[{"body":"## Implementation Plan"}]' } }),
      /GET \/repos\/acme\/taskflow\/issues\/42\/comments: the answer is not what GitHub documents \(.*id/,
    ],
    [
      'an issue that is not an issue',
      () => gh.faults.push({ path: /\/issues\/42$/, method: 'GET', fault: { kind: 'raw', status: 200, contentType: 'application/json', body: '{"labels":7}' } }),
      /GET \/repos\/acme\/taskflow\/issues\/42: the answer is not what GitHub documents/,
    ],
  ];
  for (const [name, arm, message] of broken) {
    it(`a broken answer (${name}) is an error naming the request: exit 1, nothing posted, no raw JavaScript error`, async () => {
      arm();
      const r = await cli(['42', '--self-heal', '--json']);
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, message);
      assert.doesNotMatch(r.err + r.out, /Cannot read properties|undefined is not|is not a function|Unexpected token/);
      assert.equal(posts(), 0, 'nothing posted after a failed read');
    });
  }

  // 3. Retries
  for (const then of [502, 'stall'] as const) {
    it(`a POST that lands and then ${then === 502 ? 'answers 502' : 'never answers'} is not posted again: the comments are re-read first`, async () => {
      gh.faults.push({ path: /\/issues\/42\/comments$/, method: 'POST', fault: { kind: 'lands-then', then }, times: 1 });
      const c = client({ timeoutMs: 700, retries: 2 });
      assert.equal(await heal(c), 1);
      assert.equal(comments().length, 1, comments().join('\n---\n'));
      assert.equal(posts(), 1);
    });
  }

  it('a POST refused with 502 before it landed is posted again after re-reading, once', async () => {
    gh.faults.push({ path: /\/issues\/42\/comments$/, method: 'POST', fault: { kind: 'status', status: 502 }, times: 1 });
    assert.equal(await heal(client()), 1);
    assert.equal(comments().length, 1);
    assert.equal(posts(), 2);
  });

  // 4. Caching
  it('a 304 on a full first page does not hide a newer comment (exactly 100 comments, then one more)', async () => {
    for (let i = 0; i < 100; i++) {
      gh.addComment(42, `comment ${i}`);
    }
    const c = client();
    const [before] = await readIssues({ root, repo, client: c, issues: [42] });
    assert.equal(before.result.artifacts.find((a) => a.kind === 'plan')!.status, 'on-disk');
    gh.addComment(42, `## Implementation Plan\n\n${blobUrl(repo, 'main', PLAN)}`);
    const [after] = await readIssues({ root, repo, client: c, issues: [42] });
    assert.equal(after.result.artifacts.find((a) => a.kind === 'plan')!.status, 'linked');
    assert.equal(await selfHeal(c, repo, 42, before.result.artifacts, { root }).then((p) => p.length), 0);
    assert.equal(comments().length, 101, 'nothing posted');
  });

  // 5. Concurrency
  it('four self-heals at once (separate clients, as separate processes) post exactly one comment', async () => {
    const counts = await Promise.all([1, 2, 3, 4].map(() => heal(client())));
    assert.equal(comments().length, 1, comments().join('\n---\n'));
    assert.deepEqual(
      counts.sort((a, b) => a - b),
      [0, 0, 0, 1],
    );
  });

  it('Link to Issue and self-heal at the same moment post one comment', async () => {
    const c1 = client();
    const [read] = await readIssues({ root, repo, client: c1, issues: [42] });
    await Promise.all([selfHeal(c1, repo, 42, read.result.artifacts, { root }), linkDocument(client(), repo, 42, 'plan', PLAN, { root })]);
    assert.equal(comments().length, 1, comments().join('\n---\n'));
  });

  it('two CLI processes (node dist/cli.js) and two in-process self-heals at the same moment post one comment', async function () {
    const built = path.resolve(__dirname, '../../dist/cli.js');
    // Fail, never skip (as the CLI's whole-process tests): npm test builds dist/ first.
    assert.ok(existsSync(built), 'dist/cli.js is missing: run `npm run build` first');
    const bin = mkdtempSync(path.join(tmpdir(), 'ralph-post-cli-'));
    try {
      // A private copy: a concurrent `npm run build` empties dist/ while it works.
      const cliJs = copyBuiltCli(bin);
      const child = (): Promise<string> =>
        new Promise((resolve) => {
          const args = [cliJs, 'artifacts', '42', '--self-heal', '--repo', 'acme/taskflow', '--api-url', gh.apiUrl];
          execFile(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH, GH_TOKEN: TOKEN }, timeout: 25_000 }, (e, _out, err) => resolve(e ? `exit ${e.code}: ${err}` : ''));
        });
      const [a, b] = await Promise.all([child(), child(), heal(client()), heal(client())]);
      assert.deepEqual([a, b], ['', ''], 'both CLI processes exit 0');
      assert.equal(comments().length, 1, comments().join('\n---\n'));
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it('a lock left by a crashed holder does not block: it is stale after its holder stops updating it', async () => {
    mkdirSync(path.join(root, '.ralph', 'github-post-42.lock'), { recursive: true });
    const old = new Date(Date.now() - 60_000);
    utimesSync(path.join(root, '.ralph', 'github-post-42.lock'), old, old);
    assert.equal(await heal(client()), 1);
    assert.equal(comments().length, 1);
  });

  it('a .ralph that is a symlink leading outside the folder is refused with a message; nothing is posted', async () => {
    const outside = mkdtempSync(path.join(tmpdir(), 'ralph-outside-'));
    try {
      symlinkSync(outside, path.join(root, '.ralph'));
      await assert.rejects(heal(client()), /\.ralph.*outside the workspace folder/);
      assert.equal(posts(), 0);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  // 6. Pagination
  it('a server that always says rel="next": pages are followed only while full and new, with a clear message', async () => {
    for (let i = 0; i < 150; i++) {
      gh.addComment(42, `comment ${i}`);
    }
    gh.endlessNext = true;
    const c = client();
    const [read] = await readIssues({ root, repo, client: c, issues: [42] });
    assert.equal(read.comments?.length, 150);
    assert.ok(!read.result.warnings.some((w) => /10,000/.test(w)), read.result.warnings.join());
    assert.ok(read.result.warnings.some((w) => /GitHub said more comments follow page 2, but page 2 was not full/.test(w)), read.result.warnings.join());
    assert.equal(c.requestCount, 3, 'the issue and two pages');
  });

  it('a server that answers the same full page for every page number: stops at the first repeat', async () => {
    for (let i = 0; i < 100; i++) {
      gh.addComment(42, `comment ${i}`);
    }
    gh.endlessNext = true;
    gh.ignorePage = true;
    const c = client();
    const [read] = await readIssues({ root, repo, client: c, issues: [42] });
    assert.equal(read.comments?.length, 100);
    assert.ok(read.result.warnings.some((w) => /page 2 repeats comments of earlier pages/.test(w)), read.result.warnings.join());
    assert.equal(c.requestCount, 3);
  });

  // 9. Time limits and connection failures
  it('a server that never answers is given up after the time the message names (one attempt, not three)', async () => {
    gh.faults.push({ path: /./, fault: { kind: 'slow', delayMs: 60_000 } });
    const c = client({ timeoutMs: 300, retries: 2 });
    const e = (await c.getIssue(42).catch((x: unknown) => x)) as GitHubError;
    assert.equal(e.kind, 'timeout');
    assert.match(e.message, /did not answer within 0\.3 s/);
    assert.equal(c.requestCount, 1, 'a request that timed out is not sent again: the total is the time the message names');
  });

  async function closedPort(): Promise<number> {
    const s = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => s.once('listening', r));
    const port = (s.address() as { port: number }).port;
    await new Promise((r) => s.close(r));
    return port;
  }

  const unreachable: [string, () => Promise<Partial<GitHubClientOptions>>, RegExp][] = [
    ['a closed port', async () => ({ apiUrl: `http://127.0.0.1:${await closedPort()}` }), /^Cannot reach 127\.0\.0\.1:\d+: the connection was refused/],
    ['a port the HTTP client will not use', async () => ({ apiUrl: 'http://127.0.0.1:6000' }), /^Cannot reach 127\.0\.0\.1:6000: the HTTP client refuses port 6000/],
    [
      'a reset connection',
      async () => {
        gh.faults.push({ path: /./, fault: { kind: 'reset' } });
        return {};
      },
      /^Cannot reach 127\.0\.0\.1:\d+: the connection was reset/,
    ],
    [
      'an unknown host (DNS)',
      async () => ({
        apiUrl: 'https://api.example.invalid',
        fetch: () => Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('getaddrinfo ENOTFOUND api.example.invalid'), { code: 'ENOTFOUND' }) })),
      }),
      /^Cannot reach api\.example\.invalid: the host name was not found \(DNS\)/,
    ],
  ];
  for (const [name, setup, message] of unreachable) {
    it(`cannot connect (${name}): says it could not reach the host and why, never "GitHub answered 500"`, async () => {
      const c = client({ ...(await setup()), retries: 1 });
      const e = (await c.getIssue(42).catch((x: unknown) => x)) as GitHubError;
      assert.equal(e.kind, 'network', e.message);
      assert.match(e.message, message);
      assert.doesNotMatch(e.message, /answered 500|fetch failed/);
    });
  }
});
