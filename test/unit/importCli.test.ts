/** Issue 22: `ralph-workbench import`, in process: files and folders, re-import, --dry-run, --json, bad input, and `import github` against the GitHub test server. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../src/cli/main';
import type { CliIo } from '../../src/cli/io';
import { GitHubEmulator } from '../support/githubEmulator';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'import');
const TOKEN = 'ghp_import_test_token';

type Io = CliIo & { env?: NodeJS.ProcessEnv; cwd?: string; clientOptions?: { timeoutMs?: number; retries?: number; retryAfterBaseMs?: number } };

async function run(argv: string[], extra: Partial<Io> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: Io = { stdout: (s) => (out += s), stderr: (s) => (err += s), readFile: (p) => readFileSync(p), env: {}, ...extra };
  const code = await runCli(argv, io);
  return { code, out, err };
}

describe('ralph-workbench import (in process)', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  function workspace(): string {
    const root = mkdtempSync(path.join(tmpdir(), 'ralph-import-'));
    dirs.push(root);
    return root;
  }

  it('imports a Backlog.md folder into a new prd.json, and a second import changes nothing', async () => {
    const root = workspace();
    cpSync(path.join(FIXTURES, 'backlog', 'backlog'), path.join(root, 'backlog'), { recursive: true });
    const first = await run(['import', 'backlog', '--root', root], { cwd: root });
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /^Imported 3 stories from backlog\/tasks \(backlog\) into prd\.json: 3 added, 0 updated, 0 unchanged\.$/m);
    // BACK-217 waits on task-213, which is not in the folder: the validator's problem is pointed at
    assert.match(first.out, /prd\.json: 1 problem .*ralph-workbench validate lists them/);
    const written = readFileSync(path.join(root, 'prd.json'), 'utf8');
    const prd = JSON.parse(written) as { userStories: { id: string; source: { file: string } }[] };
    assert.deepEqual(prd.userStories.map((s) => s.id), ['BACK-217', 'BACK-217.03', 'BACK-458']);
    assert.equal(prd.userStories[0].source.file, 'backlog/tasks/back-217 - Create-web-UI-for-sequences-with-drag-and-drop.md');
    const again = await run(['import', 'backlog/tasks', '--root', root], { cwd: root });
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /0 added, 0 updated, 3 unchanged\.\nprd\.json: 1 problem[\s\S]*prd\.json is unchanged\./);
    assert.equal(readFileSync(path.join(root, 'prd.json'), 'utf8'), written);
  });

  it('ralph.prdPath leading outside the folder, or a prd.json that is a symlink to a file outside, is refused: nothing written there', async () => {
    const root = workspace();
    const outside = workspace();
    cpSync(path.join(FIXTURES, 'backlog', 'backlog'), path.join(root, 'backlog'), { recursive: true });
    fs.mkdirSync(path.join(root, '.vscode'));
    writeFileSync(path.join(root, '.vscode', 'settings.json'), JSON.stringify({ 'ralph.prdPath': path.relative(root, path.join(outside, 'victim.json')) }));
    const viaSetting = await run(['import', 'backlog', '--root', root], { cwd: root });
    assert.equal(viaSetting.code, 1);
    assert.match(viaSetting.err, /ralph\.prdPath ".*victim\.json" points outside the workspace folder/);
    assert.equal(existsSync(path.join(outside, 'victim.json')), false);
    rmSync(path.join(root, '.vscode'), { recursive: true });
    const target = path.join(outside, 'target.json');
    writeFileSync(target, '{"userStories": []}\n');
    fs.symlinkSync(target, path.join(root, 'prd.json'));
    const viaLink = await run(['import', 'backlog', '--root', root], { cwd: root });
    assert.equal(viaLink.code, 1);
    assert.match(viaLink.err, /ralph\.prdPath "prd\.json" leads outside the workspace folder through a symbolic link/);
    assert.equal(readFileSync(target, 'utf8'), '{"userStories": []}\n');
  });

  it('--dry-run writes nothing; --json says what it did; --out picks the file', async () => {
    const root = workspace();
    const tasks = path.join(FIXTURES, 'taskmaster', 'tagged', '.taskmaster', 'tasks', 'tasks.json');
    const dry = await run(['import', tasks, '--root', root, '--dry-run'], { cwd: root });
    assert.equal(dry.code, 0, dry.err);
    assert.match(dry.out, /^Would import 10 stories/);
    assert.equal(existsSync(path.join(root, 'prd.json')), false);
    const json = await run(['import', tasks, '--root', root, '--out', 'plan/tasks-prd.json', '--json'], { cwd: root });
    assert.equal(json.code, 1, 'the folder of --out does not exist: refused, said');
    assert.match(json.err, /ralph-workbench import: the folder of plan\/tasks-prd\.json does not exist: create it, or choose another --out\./);
    const ok = await run(['import', tasks, '--root', root, '--out', 'other.json', '--json'], { cwd: root });
    assert.equal(ok.code, 0, ok.err);
    const answer = JSON.parse(ok.out) as Record<string, unknown>;
    assert.deepEqual([answer.format, answer.out, answer.stories, answer.added, answer.written, answer.problems], ['taskmaster', 'other.json', 10, 10, true, 0]);
    assert.equal((JSON.parse(readFileSync(path.join(root, 'other.json'), 'utf8')) as { userStories: unknown[] }).userStories.length, 10);
  });

  it('bad input: an unknown format, a missing source, a broken file, a bad --format; the prd.json is untouched', async () => {
    const root = workspace();
    writeFileSync(path.join(root, 'prd.json'), '{"userStories": []}\n');
    writeFileSync(path.join(root, 'notes.md'), '# Notes\n\nnothing to do\n');
    writeFileSync(path.join(root, 'broken.json'), '{"tasks": [\n  {"id": 1,\n');
    const cases: [string[], RegExp][] = [
      [['import', 'notes.md'], /notes\.md: not a backlog format this import reads: it has no task lines[\s\S]*Known formats:/],
      [['import', 'nowhere'], /nowhere: no such file or folder/],
      [['import', 'broken.json', '--format', 'taskmaster'], /broken\.json is not valid JSON \(\w+ at line 3\)/],
      [['import', 'notes.md', '--format', 'jira'], /--format must be one of spec-kit, kiro, taskmaster, beads, backlog, github/],
      [['import'], /which source\?/],
    ];
    for (const [argv, message] of cases) {
      const r = await run([...argv, '--root', root], { cwd: root });
      assert.equal(r.code, 1, argv.join(' '));
      assert.match(r.err, message);
      assert.doesNotMatch(r.err, /Cannot read properties|TypeError/);
    }
    assert.equal(readFileSync(path.join(root, 'prd.json'), 'utf8'), '{"userStories": []}\n');
  });

  it('a folder stands for its backlog: .taskmaster (the current tag of its state.json), .beads, a spec folder; an empty folder is said', async () => {
    const root = workspace();
    const tm = path.join(root, '.taskmaster');
    fs.mkdirSync(path.join(tm, 'tasks'), { recursive: true });
    fs.writeFileSync(path.join(tm, 'tasks', 'tasks.json'), JSON.stringify({ master: { tasks: [{ id: 1, title: 'M' }] }, 'feature-x': { tasks: [{ id: 1, title: 'X' }, { id: 2, title: 'Y' }] } }));
    fs.writeFileSync(path.join(tm, 'state.json'), JSON.stringify({ currentTag: 'feature-x' }));
    cpSync(path.join(FIXTURES, 'beads', '.beads'), path.join(root, '.beads'), { recursive: true });
    cpSync(path.join(FIXTURES, 'kiro', '.kiro'), path.join(root, '.kiro'), { recursive: true });
    fs.mkdirSync(path.join(root, 'empty'));
    const cases: [string, string, number][] = [
      ['.taskmaster', 'taskmaster', 2],
      ['.', 'taskmaster', 2],
      ['.beads', 'beads', 10],
      ['.kiro/specs/user-authentication', 'kiro', 15],
    ];
    for (const [source, format, stories] of cases) {
      const r = await run(['import', source, '--root', root, '--dry-run', '--json'], { cwd: root });
      assert.equal(r.code, 0, r.err);
      const answer = JSON.parse(r.out) as { format: string; stories: number };
      assert.deepEqual([answer.format, answer.stories], [format, stories], source);
    }
    const tagged = await run(['import', '.taskmaster', '--tag', 'master', '--root', root, '--dry-run', '--json'], { cwd: root });
    assert.equal((JSON.parse(tagged.out) as { stories: number }).stories, 1);
    const empty = await run(['import', 'empty', '--root', root], { cwd: root });
    assert.equal(empty.code, 1);
    assert.match(empty.err, /empty is a folder with no backlog this import reads: looked for backlog\/tasks\/\*\.md, \.taskmaster\/tasks\/tasks\.json, \.beads\/issues\.jsonl and tasks\.md\./);
  });

  it('--help prints the usage with the formats', async () => {
    const r = await run(['import', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.out, /^Usage: ralph-workbench import <source>/);
    assert.match(r.out, /beads {7}\.beads\/issues\.jsonl/);
  });

  describe('import github (the GitHub test server)', () => {
    let gh: GitHubEmulator;
    before(async () => {
      gh = await new GitHubEmulator({ token: TOKEN, owner: 'acme', repo: 'shop' }).start();
      const epic = gh.addIssue(1, 'Checkout epic', ['ralph'], { body: 'All of checkout.' });
      const cart = gh.addIssue(2, 'Cart', ['ralph', 'P1'], { body: 'A cart.\n- [ ] add items\n- [x] remove items', milestone: { number: 7, title: 'v1' } });
      const pay = gh.addIssue(3, 'Pay', ['ralph'], { state: 'closed', milestone: { number: 7, title: 'v1' } });
      gh.addIssue(4, 'Unrelated', ['docs']);
      epic.subIssues.push(2, 3);
      pay.blockedBy.push(cart.id);
    });
    after(async () => gh.stop());

    it('imports the labelled issues with blocked-by and sub-issues; --milestone picks a milestone', async () => {
      const root = workspace();
      const env = { GH_TOKEN: TOKEN };
      const r = await run(['import', 'github', '--repo', 'acme/shop', '--label', 'ralph', '--api-url', gh.apiUrl, '--root', root], { cwd: root, env, clientOptions: { timeoutMs: 5000, retries: 0 } });
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /Imported 3 stories from github\.com\/acme\/shop \(github\)/);
      const prd = JSON.parse(readFileSync(path.join(root, 'prd.json'), 'utf8')) as { userStories: { id: string; passes: boolean; priority: number; blockedBy?: string[]; acceptanceCriteria: string[]; source: unknown }[] };
      const byId = new Map(prd.userStories.map((s) => [s.id, s]));
      assert.deepEqual([...byId.keys()].sort(), ['GH-1', 'GH-2', 'GH-3']);
      assert.deepEqual(byId.get('GH-1')?.blockedBy, ['GH-2', 'GH-3']);
      assert.deepEqual(byId.get('GH-3')?.blockedBy, ['GH-2']);
      assert.equal(byId.get('GH-3')?.passes, true);
      assert.equal(byId.get('GH-2')?.priority, 1);
      assert.deepEqual(byId.get('GH-2')?.acceptanceCriteria, ['add items', 'remove items']);
      assert.deepEqual(byId.get('GH-2')?.source, { format: 'github', file: 'acme/shop', id: '#2' });
      const m = await run(['import', 'github', '--repo', 'acme/shop', '--milestone', 'v1', '--api-url', gh.apiUrl, '--root', root, '--out', 'v1.json', '--json'], { cwd: root, env, clientOptions: { timeoutMs: 5000, retries: 0 } });
      assert.equal(m.code, 0, m.err);
      assert.equal((JSON.parse(m.out) as { stories: number }).stories, 2);
    });

    it('without a token, or with both --label and --milestone, says so and reads nothing', async () => {
      const root = workspace();
      const before = gh.requests.length;
      const none = await run(['import', 'github', '--repo', 'acme/shop', '--api-url', gh.apiUrl, '--root', root], { cwd: root, env: {} });
      assert.equal(none.code, 1);
      assert.match(none.err, /needs a token in GH_TOKEN or GITHUB_TOKEN/);
      const both = await run(['import', 'github', '--repo', 'acme/shop', '--label', 'a', '--milestone', 'b', '--api-url', gh.apiUrl, '--root', root], { cwd: root, env: { GH_TOKEN: TOKEN } });
      assert.equal(both.code, 1);
      assert.match(both.err, /--label and --milestone: choose one/);
      assert.equal(gh.requests.length, before);
      assert.equal(existsSync(path.join(root, 'prd.json')), false);
    });
  });
});
