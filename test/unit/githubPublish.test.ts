/**
 * Publish Stories to GitHub (issue 20) against the project's GitHub test server: the issues, the
 * parent and its sub-issues, the native "blocked by" dependencies; a second publish that writes
 * nothing; exactly the writes a change needs; a publish cut off at any write that goes on without a
 * duplicate; and each fault: no dependencies API, an issue written by hand, a deleted or transferred
 * issue, a dependency on another repository's issue, a secondary rate limit, a token without the
 * permission. The CLI `github publish` on a real prd.json file, whose `issue` fields it writes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runPublish } from '../../src/cli/github/publishCommand';
import { runStatus } from '../../src/cli/github/statusCommand';
import { storyIdOfBody } from '../../src/core/github/storyIssue';
import { analyzePrd } from '../../src/core/prd/index';
import { GitHubClient } from '../../src/node/github/client';
import { PublishStopped, publishStories } from '../../src/node/github/publish';
import { GitHubEmulator } from '../support/githubEmulator';
import { makePrd, type StoryInput } from './helpers';

const TOKEN = 'test-token-publish';
const REPOSITORY = 'acme/taskflow';

describe('Publish Stories to GitHub (issue 20, against the test server)', function () {
  this.timeout(60_000);
  let gh: GitHubEmulator;
  beforeEach(async () => {
    gh = await new GitHubEmulator({ token: TOKEN, owner: 'acme', repo: 'taskflow' }).start();
  });
  afterEach(async () => {
    await gh.stop();
  });

  // One client per server, as VS Code keeps one per folder: its ETags make a second read a 304.
  let shared: { gh: GitHubEmulator; client: GitHubClient } | undefined;
  const client = (): GitHubClient => {
    if (shared?.gh !== gh) {
      shared = { gh, client: new GitHubClient({ token: TOKEN, apiUrl: gh.apiUrl, owner: 'acme', repo: 'taskflow', retryAfterBaseMs: 10, writeIntervalMs: 0 }) };
    }
    return shared.client;
  };
  const prd = (stories: StoryInput[]) => analyzePrd(makePrd(stories, { branchName: 'ralph/tasks' }));
  const publish = (stories: StoryInput[], options: Parameters<typeof publishStories>[2] = {}) => publishStories(client(), prd(stories), { repository: REPOSITORY, ...options });
  const storyIssues = (): Map<string, (typeof gh.issues extends Map<number, infer I> ? I : never)> => {
    const out = new Map();
    for (const i of gh.issues.values()) {
      const id = i.body ? storyIdOfBody(i.body) : undefined;
      if (id !== undefined) {
        assert.ok(!out.has(id), `two issues carry the marker of ${id}`);
        out.set(id, i);
      }
    }
    return out;
  };
  const backlog: StoryInput[] = [
    { id: 'US-001', title: 'Add the priority field', passes: true },
    { id: 'US-002', title: 'Show the priority', blockedBy: ['US-001'] },
    { id: 'US-003', title: 'Filter by priority', blockedBy: ['US-002'] },
    { id: 'US-004', title: 'Sort by priority', blockedBy: ['US-001', 'US-002'] },
  ];

  it('one issue per story under a parent named after the branch, labels by state, native "blocked by", a passing story closed', async () => {
    const report = await publish(backlog);
    const issues = storyIssues();
    assert.deepEqual([...issues.keys()].sort(), ['US-001', 'US-002', 'US-003', 'US-004']);
    const of = (id: string) => issues.get(id)!;
    assert.equal(of('US-002').title, 'US-002: Show the priority');
    assert.match(of('US-002').body ?? '', /## Acceptance criteria\n- \[ \] /);
    assert.deepEqual(of('US-001').labels.sort(), ['ralph', 'ralph:done']);
    assert.equal(of('US-001').state, 'closed');
    assert.deepEqual(of('US-002').labels.sort(), ['ralph', 'ralph:ready']);
    assert.deepEqual(of('US-003').labels.sort(), ['ralph', 'ralph:blocked']);
    assert.deepEqual(of('US-004').blockedBy.sort(), [of('US-001').id, of('US-002').id].sort());
    assert.deepEqual(of('US-003').blockedBy, [of('US-002').id]);
    const parent = [...gh.issues.values()].find((i) => i.title.startsWith('ralph/tasks: '));
    assert.ok(parent, 'the feature’s parent issue');
    assert.deepEqual(parent.subIssues.sort((a, b) => a - b), [...issues.values()].map((i) => i.number).sort((a, b) => a - b));
    assert.deepEqual(Object.fromEntries(report.issueNumbers), Object.fromEntries([...issues].map(([id, i]) => [id, i.number])));
    assert.equal(report.dependencies, 'native');
    assert.ok(['ralph', 'ralph:ready', 'ralph:blocked', 'ralph:done'].every((l) => gh.labels.has(l)), 'our labels exist');
  });

  it('a second publish with nothing changed writes nothing; from then on its reads are answered by 304', async () => {
    await publish(backlog);
    let from = gh.requests.length;
    const again = await publish(backlog);
    assert.deepEqual(again.writes, []);
    assert.equal(gh.writes(from).length, 0);
    // The first publish read before it wrote (and never read what it had just made): the second
    // reads fresh answers, and a third finds them unchanged.
    from = gh.requests.length;
    assert.deepEqual((await publish(backlog)).writes, []);
    const reads = gh.since(from).filter((r) => r.method === 'GET');
    assert.ok(reads.length > 0 && reads.every((r) => r.status === 304), JSON.stringify(reads.map((r) => `${r.status} ${r.url}`)));
  });

  it('a change makes exactly the writes it needs: a title, a dependency removed and one added, a story that now passes closed', async () => {
    await publish(backlog);
    const from = gh.requests.length;
    const changed: StoryInput[] = [
      backlog[0],
      { ...backlog[1], passes: true },
      { ...backlog[2], title: 'Filter tasks by priority', blockedBy: ['US-001'] },
      backlog[3],
    ];
    const report = await publish(changed);
    const writes = gh.writes(from).map((w) => `${w.method} ${w.url.replace(/^.*\/repos\/acme\/taskflow/, '')}`);
    const issues = storyIssues();
    const n = (id: string): number => issues.get(id)!.number;
    assert.deepEqual(writes.sort(), [
      `PATCH /issues/${n('US-002')}`, // closed, labels done, criteria ticked
      `PATCH /issues/${n('US-003')}`, // title; ready now (US-001 passes)
      `POST /issues/${n('US-003')}/dependencies/blocked_by`,
      `DELETE /issues/${n('US-003')}/dependencies/blocked_by/${issues.get('US-002')!.id}`,
      `PATCH /issues/${n('US-004')}`, // ready now: its blockers pass
    ].sort(), report.writes.join('\n'));
    assert.equal(issues.get('US-002')!.state, 'closed');
    assert.equal(issues.get('US-003')!.title, 'US-003: Filter tasks by priority');
    assert.deepEqual(issues.get('US-003')!.blockedBy, [issues.get('US-001')!.id]);
  });

  it('cut off after any write, the next publish goes on: no duplicate issue, no duplicate dependency', async () => {
    const stories: StoryInput[] = Array.from({ length: 8 }, (_, i) => ({ id: `S-${i}`, blockedBy: i > 0 ? [`S-${i - 1}`] : [] }));
    const full = (await publishStories(client(), prd(stories), { dryRun: true, repository: REPOSITORY })).writes.length;
    for (const cut of [1, 3, 6, 9, 12, full - 1]) {
      await gh.stop();
      gh = await new GitHubEmulator({ token: TOKEN, owner: 'acme', repo: 'taskflow' }).start();
      const controller = new AbortController();
      let done = 0;
      await assert.rejects(
        publishStories(client(), prd(stories), { repository: REPOSITORY, signal: controller.signal, onProgress: (p) => (p.done >= cut && done++ === 0 ? controller.abort() : undefined) }),
        (e: unknown) => e instanceof PublishStopped && e.cancelled,
      );
      const after = await publish(stories);
      const issues = storyIssues();
      assert.equal(issues.size, 8, `cut at ${cut}: every story has one issue`);
      for (const i of issues.values()) {
        assert.equal(new Set(i.blockedBy).size, i.blockedBy.length, `cut at ${cut}: a dependency twice on #${i.number}`);
      }
      assert.equal([...gh.issues.values()].filter((i) => i.title.startsWith('ralph/tasks: ')).length, 1, `cut at ${cut}: one parent`);
      assert.equal(after.issueNumbers.size, 8);
      assert.deepEqual((await publish(stories)).writes, [], `cut at ${cut}: then nothing left to do`);
    }
  });

  it('without the dependencies API (older GitHub Enterprise Server) each issue lists "Blocked by #n", and the publish says so once', async () => {
    gh.dependenciesApi = false;
    const report = await publish(backlog);
    assert.equal(report.dependencies, 'body-list');
    const issues = storyIssues();
    assert.match(issues.get('US-004')!.body ?? '', new RegExp(`Blocked by #${issues.get('US-001')!.number}, #${issues.get('US-002')!.number}`));
    assert.equal(report.notes.filter((n) => /no issue dependencies API/.test(n)).length, 1);
    assert.deepEqual((await publish(backlog)).writes, []);
  });

  it('an issue written by hand (no marker), named by the story’s issue field, is linked: its text left alone, the difference reported', async () => {
    gh.addIssue(7, 'Priorities, as the team wrote it', ['enhancement'], { body: 'Our own words' });
    const stories: StoryInput[] = [{ id: 'US-001', title: 'Add the priority field', issue: 7 } as StoryInput];
    const report = await publish(stories);
    const mine = gh.issues.get(7)!;
    assert.equal(mine.title, 'Priorities, as the team wrote it');
    assert.equal(mine.body, 'Our own words');
    assert.deepEqual(mine.labels.sort(), ['enhancement', 'ralph', 'ralph:ready']);
    assert.equal(report.issueNumbers.get('US-001'), 7);
    assert.equal(report.created.length, 0, 'linked, not duplicated');
    assert.match(report.notes.join('\n'), /#7 was written by hand \(no Ralph Workbench marker\): its title and text are left alone/);
  });

  it('a marker in an issue opened by someone outside the trusted authors is ignored: a linked issue’s author cannot take another story’s issue', async () => {
    // An outsider's issue, linked by hand to US-001; US-002 has its own published issue.
    gh.addIssue(3, 'Please add priorities', [], { body: 'From a user', author: { login: 'outsider', association: 'NONE' } });
    const stories: StoryInput[] = [{ id: 'US-001', title: 'Add the priority field', issue: 3 } as StoryInput, { id: 'US-002', title: 'Show the priority' }];
    const first = await publish(stories);
    const own = first.issueNumbers.get('US-002')!;
    assert.notEqual(own, 3);
    // The outsider edits their own issue's text: it is now a copy of US-002's, marker included.
    const theirs = gh.issues.get(3)!;
    theirs.body = gh.issues.get(own)!.body;
    const before = JSON.stringify([...gh.issues.values()].filter((i) => i.number !== 3));
    const second = await publish(stories);
    assert.equal(second.issueNumbers.get('US-002'), own, 'US-002 keeps its issue');
    assert.equal(second.issueNumbers.get('US-001'), 3, 'US-001 stays linked to the hand-written issue');
    assert.equal(gh.issues.get(3)!.title, 'Please add priorities', 'the outsider’s issue is not rewritten as US-002’s');
    assert.equal(JSON.stringify([...gh.issues.values()].filter((i) => i.number !== 3)), before, 'no other issue changed');
    assert.match(second.notes.join('\n'), /#3 carries the marker of US-002, but its author @outsider \(NONE\) is not OWNER, MEMBER or COLLABORATOR, who may mark an issue as a story's .*the marker is ignored/);
  });

  it('a deleted issue gets a new one; a transferred one is not published and the note says where it went', async () => {
    gh.addIssue(5, 'gone').deleted = true;
    gh.addIssue(6, 'moved').transferredTo = { owner: 'acme', repo: 'elsewhere', number: 1 };
    const report = await publish([{ id: 'A', issue: 5 } as StoryInput, { id: 'B', issue: 6 } as StoryInput]);
    assert.match(report.notes.join('\n'), /A: #5 was deleted on GitHub: the story gets a new issue/);
    assert.match(report.notes.join('\n'), /B: #6 was transferred .*: not published/);
    assert.ok(report.issueNumbers.get('A')! > 6);
    assert.equal(report.issueNumbers.has('B'), false);
  });

  it('a dependency on another repository’s issue is kept and shown, never removed', async () => {
    await publish(backlog);
    const foreign = gh.addForeignIssue('acme/api', 3);
    const issues = storyIssues();
    issues.get('US-003')!.blockedBy.push(foreign.id);
    const report = await publish(backlog);
    assert.ok(issues.get('US-003')!.blockedBy.includes(foreign.id));
    assert.match(report.notes.join('\n'), /US-003: #\d+ is also blocked by an issue of another repository \(#3\): kept\./);
    assert.deepEqual(report.writes, []);
  });

  it('a secondary rate limit in the middle is waited out: every issue once', async () => {
    gh.faults.push({ path: /\/issues$/, method: 'POST', fault: { kind: 'secondary', retryAfterSeconds: 1 }, times: 1 });
    await publish(backlog);
    assert.equal(storyIssues().size, 4);
  });

  it('the CLI publishes, writes each story’s issue number into prd.json with a minimal edit, and a token without the permission is named', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'ralph-publish-'));
    try {
      const text = `${makePrd(backlog, { branchName: 'ralph/tasks' })}`;
      writeFileSync(path.join(root, 'prd.json'), text);
      const out = { stdout: '', stderr: '' };
      const io = { stdout: (s: string) => void (out.stdout += s), stderr: (s: string) => void (out.stderr += s), readFile: (p: string) => readFileSync(p), env: { GH_TOKEN: TOKEN }, cwd: root, clientOptions: { retryAfterBaseMs: 10 }, onInterrupt: () => () => undefined };
      const dry = await runPublish(['publish', '--repo', 'acme/taskflow', '--api-url', gh.apiUrl, '--dry-run', '--write-interval', '0'], io);
      assert.equal(dry, 0, out.stderr);
      assert.match(out.stdout, /Would make \d+ write\(s\) to acme\/taskflow:\n {2}create the label "ralph"/);
      assert.equal(gh.writes().length, 0, 'a dry run writes nothing');
      assert.equal(readFileSync(path.join(root, 'prd.json'), 'utf8'), text);
      out.stdout = '';
      const code = await runPublish(['publish', '--repo', 'acme/taskflow', '--api-url', gh.apiUrl, '--write-interval', '0', '--json'], io);
      assert.equal(code, 0, out.stderr);
      const json = JSON.parse(out.stdout) as { created: { storyId: string; number: number }[]; prdUpdated: boolean };
      assert.equal(json.created.length, 4);
      assert.equal(json.prdUpdated, true);
      const after = readFileSync(path.join(root, 'prd.json'), 'utf8');
      const stories = (JSON.parse(after) as { userStories: { id: string; issue?: number }[] }).userStories;
      assert.deepEqual(Object.fromEntries(stories.map((s) => [s.id, s.issue])), Object.fromEntries(json.created.map((c) => [c.storyId, c.number])));
      // Minimal: every line of the old file is still there, in order.
      const kept = text.split('\n').filter((l) => after.includes(l));
      assert.equal(kept.length, text.split('\n').length);

      // github status: where each published story stands (a run in progress, an issue closed).
      gh.addWorkflow('ralph.yml');
      gh.setRunStatus(gh.addRun('ralph.yml', 'ralph/tasks', { story: 'US-002', branch: 'ralph/tasks' }).id, 'in_progress');
      out.stdout = '';
      assert.equal(await runStatus(['status', '--repo', 'acme/taskflow', '--api-url', gh.apiUrl, '--json'], io), 0, out.stderr);
      const status = JSON.parse(out.stdout) as { stories: { id: string; state: string; label: string; inFlight: boolean }[] };
      const of = (id: string) => status.stories.find((x) => x.id === id);
      assert.deepEqual([of('US-002')?.label, of('US-002')?.inFlight], ['run in progress', true]);
      assert.equal(of('US-001')?.state, 'issue-closed');

      gh.faults.push({ path: /\/issues$/, method: 'POST', fault: { kind: 'permission', accepted: 'issues=write' } });
      writeFileSync(path.join(root, 'prd.json'), makePrd([{ id: 'NEW-1' }], { branchName: 'ralph/other' }));
      out.stderr = '';
      assert.equal(await runPublish(['publish', '--repo', 'acme/taskflow', '--api-url', gh.apiUrl, '--write-interval', '0'], io), 1);
      assert.match(out.stderr, /Issues: write/i);
      out.stderr = '';
      assert.equal(await runPublish(['publish', '--repo', 'acme/taskflow', '--api-url', gh.apiUrl], { ...io, env: {} }), 1);
      assert.match(out.stderr, /needs a token in GH_TOKEN or GITHUB_TOKEN that may write issues/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
