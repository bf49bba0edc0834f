/**
 * Human-readable CLI output shows control and bidirectional-override characters from prd.json and
 * GitHub as visible escapes (`\u001b`, `\u202e`), never raw; `--json` keeps them as data (issue 16
 * item 16). Whole process (node dist/cli.js), as a terminal receives it.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { oneLine, visibleControls } from '../../src/core/output';
import { GitHubEmulator } from '../support/githubEmulator';
import { cli, cliAsync, copyBuiltCli, makePrd } from './helpers';

/** ESC [2J (clear screen), RIGHT-TO-LEFT OVERRIDE, a C1 control (NEL), a line break, an OSC title sequence. */
const HOSTILE = 'Clear\u001b[2J then \u202eesrever\u202c and \u0085 next\nline \u001b]0;pwned\u0007';
const SHOWN = 'Clear\\u001b[2J then \\u202eesrever\\u202c and \\u0085 next\\u000aline \\u001b]0;pwned\\u0007';
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const UNKNOWN_ID = 'GONE\u202e1';

const PRD = makePrd([
  { id: 'US-001', title: HOSTILE, description: `Why: ${HOSTILE}`, priority: 1 },
  { id: 'US-002', title: 'Plain', priority: 2, blockedBy: ['US-001', UNKNOWN_ID] },
]);

function assertVisible(out: string, what: string): void {
  const m = RAW.exec(out);
  assert.equal(m, null, `${what}: raw U+${m?.[0].charCodeAt(0).toString(16).padStart(4, '0')} in ${JSON.stringify(out)}`);
}

describe('CLI output escapes control and bidi characters (issue 16 item 16; whole process)', function () {
  const built = path.resolve(__dirname, '../../dist/cli.js');
  let dir = '';
  let cliPath = '';

  before(function () {
    assert.ok(existsSync(built), 'dist/cli.js is missing: run `npm run build` first (npm test does) — the whole-process CLI tests need it');
    dir = mkdtempSync(path.join(tmpdir(), 'ralph-cli-esc-'));
    cliPath = copyBuiltCli(dir);
    writeFileSync(path.join(dir, 'prd.json'), PRD);
  });

  after(() => {
    if (dir) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const run = (args: string[]): { status: number | null; stdout: string; stderr: string } =>
    spawnSync(process.execPath, [cliPath, ...args], { cwd: dir, encoding: 'utf8', timeout: 15000 });

  it('next and ready: the title with visible escapes on one line; --json keeps the text', () => {
    for (const command of ['next', 'ready']) {
      const r = run([command]);
      assert.equal(r.status, 0, r.stderr);
      assertVisible(r.stdout + r.stderr, command);
      assert.equal(r.stdout.split('\n')[0], `US-001 - ${SHOWN} (priority 1)`);
      const j = run([command, '--json']);
      const parsed = JSON.parse(j.stdout) as { next?: { title: string }; ready?: { title: string }[] };
      assert.equal(command === 'next' ? parsed.next?.title : parsed.ready?.[0].title, HOSTILE);
    }
  });

  it('validate: the problem message shows the unknown id escaped; --json keeps it', () => {
    const r = run(['validate']);
    assert.equal(r.status, 1);
    assertVisible(r.stdout + r.stderr, 'validate');
    assert.match(r.stdout, /"GONE\\u202e1", which is not a story/);
    const j = JSON.parse(run(['validate', '--json']).stdout) as { problems: { message: string }[] };
    assert.ok(j.problems.some((p) => p.message.includes(`"${UNKNOWN_ID}"`)), JSON.stringify(j));
  });

  it('graph: text and Mermaid escape ids and titles; json keeps them', () => {
    const text = run(['graph']);
    assert.equal(text.status, 0, text.stderr);
    assertVisible(text.stdout, 'graph text');
    assert.match(text.stdout, /US-002: waits on "GONE\\u202e1", not a story in prd\.json/);
    const mermaid = run(['graph', '--format', 'mermaid']);
    assertVisible(mermaid.stdout, 'graph mermaid');
    assert.ok(mermaid.stdout.includes('n0["US-001: Clear\\u001b#91;2J then \\u202eesrever\\u202c and \\u0085 next line \\u001b#93;0;pwned\\u0007"]'), mermaid.stdout);
    const json = JSON.parse(run(['graph', '--format', 'json']).stdout) as { unblocks: Record<string, unknown> };
    assert.deepEqual(Object.keys(json.unblocks), ['US-001', 'US-002']);
  });

  it('context piped to an agent or a file is the prompt itself, unchanged', () => {
    const r = run(['context', 'US-001']);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.stdout.includes(`Why: ${HOSTILE}`), 'the description reaches the agent as written');
  });

  it('stderr escapes what it repeats from the command line', () => {
    const r = run(['bogus\u001b[2J\u202e']);
    assert.equal(r.status, 1);
    assertVisible(r.stderr, 'unknown command');
    assert.match(r.stderr, /unknown command "bogus\\u001b\[2J\\u202e"/);
  });

  describe('artifacts (GitHub emulator)', function () {
    this.timeout(30_000);
    const TOKEN = 'ghp_emulatorTestToken0123456789';
    let gh: GitHubEmulator;

    beforeEach(async () => {
      gh = await new GitHubEmulator({ token: TOKEN }).start();
    });
    afterEach(async () => {
      await gh.stop();
    });

    /** Asynchronous: the emulator answers from this process while the CLI runs. */
    function runAsync(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
      return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [cliPath, ...args], { cwd: dir, env: { ...process.env, GH_TOKEN: TOKEN, GITHUB_TOKEN: '' }, timeout: 20_000 });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
        child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    }

    it('issue titles and artifact URLs are shown escaped; --json keeps them', async () => {
      const research = `thoughts/shared/research/2026-11-15-GH-0042-x\u202eevil.md`;
      mkdirSync(path.join(dir, path.dirname(research)), { recursive: true });
      writeFileSync(path.join(dir, research), '# Doc\n');
      gh.addIssue(42, `Title ${HOSTILE}`);
      gh.addComment(42, `## Research Document\n\nhttps://github.com/acme/taskflow/blob/main/${research}\n\nSummary.`);
      gh.addComment(42, `## Implementation Plan\n\nhttps://github.com/acme/taskflow/blob/main/thoughts/shared/plans/2026-11-16-GH-0042-\u001b[31mred.md`);
      const args = ['artifacts', '42', '--repo', 'acme/taskflow', '--api-url', gh.apiUrl];
      const r = await runAsync(args);
      assertVisible(r.stdout + r.stderr, 'artifacts');
      assert.ok(r.stdout.startsWith(`#42 Title ${SHOWN} [open]`), r.stdout);
      assert.ok(r.stdout.includes('2026-11-15-GH-0042-x\\u202eevil.md'), r.stdout);
      // A URL ends at a control character (the comment parser reads what a person sees): the plan
      // is shown up to the ESC, and the ESC itself never reaches the terminal.
      assert.match(r.stdout, /Plan +linked +https:\/\/github\.com\/acme\/taskflow\/blob\/main\/thoughts\/shared\/plans\/2026-11-16-GH-0042-\n/);
      const j = JSON.parse((await runAsync([...args, '--json'])).stdout) as { issues: { title: string; artifacts: { path?: string; url?: string }[] }[] };
      assert.equal(j.issues[0].title, `Title ${HOSTILE}`);
      assert.ok(j.issues[0].artifacts.some((a) => a.path === research), JSON.stringify(j.issues[0].artifacts));
    });
  });
});

describe('CLI documents in a terminal (issue 16 item 16)', () => {
  it('context in a terminal shows the escapes; piped it is the prompt', () => {
    const files = { 'prd.json': PRD };
    const shown = cli(['context', 'US-001'], files, { terminal: true });
    assertVisible(shown.stdout, 'context in a terminal');
    assert.ok(shown.stdout.includes(`Why: Clear\\u001b[2J then \\u202eesrever\\u202c and \\u0085 next\nline`), shown.stdout);
    assert.ok(cli(['context', 'US-001'], files).stdout.includes(`Why: ${HOSTILE}`));
  });
});

describe('CLI memory commands (issue 16 item 16)', () => {
  it('compact --dry-run shows progress.txt lines with visible escapes; --json is JSON', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ralph-compact-esc-'));
    try {
      const file = path.join(dir, 'progress.txt');
      const evil = HOSTILE.replace('\n', ' ');
      const entries = [1, 2, 3, 4, 5, 6].map((k) => `## 2026-01-0${k} 10:00 - US-00${k}\u202e\n- Did ${evil}\n**Learnings for future iterations:**\n- Learned ${evil}\n- More\n---\n`);
      writeFileSync(file, `# Ralph Progress Log\n\n## Codebase Patterns\n- Pattern\n\n---\n\n${entries.join('\n')}`);
      const r = await cliAsync(['compact', '--file', file, '--threshold', '10', '--keep', '8', '--dry-run'], 'disk');
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /would compact/);
      assertVisible(r.stdout + r.stderr, 'compact --dry-run');
      assert.ok(r.stdout.includes('Learned Clear\\u001b[2J then \\u202eesrever'), r.stdout);
      assert.ok(r.stdout.includes('US-001\\u202e'), r.stdout);
      const j = await cliAsync(['compact', '--file', file, '--threshold', '10', '--keep', '8', '--dry-run', '--json'], 'disk');
      assert.deepEqual((JSON.parse(j.stdout) as { stories: string[] }).stories, ['US-001', 'US-002', 'US-003', 'US-004', 'US-005']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('visibleControls and oneLine (issue 16 item 16)', () => {
  const anyText = fc.string({ unit: fc.oneof(fc.constantFrom('\n', '\r', '\t', '\u001b', '\u0085', '\u009b', '\u202e', '\u2066', '\u200f', '\u061c', '\\'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 40 });

  it('leave no raw control or bidi character but line breaks, and can be read back', () => {
    fc.assert(
      fc.property(anyText, (t) => {
        const shown = visibleControls(t);
        assert.equal(RAW.exec(shown.replace(/\r\n/g, '\n')), null);
        assert.equal(RAW.exec(oneLine(t)), null);
        assert.ok(!oneLine(t).includes('\n') && !oneLine(t).includes('\r'));
        // Nothing else changes: undoing the escapes of characters that were escaped gives the text back.
        const back = (s: string): string => s.replace(/\\u([0-9a-f]{4})/g, (m, h: string) => (RAW.test(String.fromCharCode(parseInt(h, 16))) || h === '000a' || h === '000d' ? String.fromCharCode(parseInt(h, 16)) : m));
        if (!/\\u[0-9a-f]{4}/.test(t)) {
          assert.equal(back(shown), t);
          assert.equal(back(oneLine(t)), t);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keep ordinary text, CRLF and non-Latin scripts as they are', () => {
    for (const t of ['US-001 - Ordinary title', 'a\r\nb\n', 'עברית ו-العربية', 'emoji 🚀 and é']) {
      assert.equal(visibleControls(t), t);
    }
    assert.equal(oneLine('a\r\nb'), 'a\\u000d\\u000ab');
    assert.equal(visibleControls('a\rb\tc'), 'a\\u000db\\u0009c');
  });
});
