import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs, runCli } from '../../src/cli/main';
import { cli, columnOf, copyBuiltCli, lineOf, makePrd } from './helpers';

const valid = makePrd([
  { id: 'US-001', title: 'Schema', priority: 1, passes: true },
  { id: 'US-002', title: 'API', priority: 2, blockedBy: ['US-001'] },
  { id: 'US-003', title: 'UI', priority: 3, blockedBy: ['US-002'] },
  { id: 'US-004', title: 'Docs', priority: 2 },
]);
const cyclic = makePrd([
  { id: 'A', title: 'a', blockedBy: ['B'] },
  { id: 'B', title: 'b', blockedBy: ['A'] },
  { id: 'C', title: 'c', passes: true },
]);
const complete = makePrd([{ id: 'A', passes: true }]);
const unknownOnly = makePrd([{ id: 'A', blockedBy: ['GHOST'] }]);
const files: Record<string, string | Uint8Array> = {
  'prd.json': valid,
  'cyclic.json': cyclic,
  'complete.json': complete,
  'empty-list.json': makePrd([]),
  'unknown.json': unknownOnly,
  'syntax.json': '{\n  "userStories": [\n    {"id": "A",}\n  ]\n}\n',
  'schema.json': makePrd([{ id: 'A', passes: 'no' as unknown as boolean }]),
  'dup.json': makePrd([{ id: 'A' }, { id: 'A' }]),
  'empty.json': '',
  'latin1.json': new Uint8Array([...new TextEncoder().encode('{"userStories": [], "x": "caf'), 0xe9, 0x22, 0x7d]),
};

function json(s: string): unknown {
  return JSON.parse(s);
}

function keysOf(o: object): string[] {
  return Object.keys(o);
}

describe('CLI (runCli)', () => {
  describe('validate', () => {
    it('exits 0 for a valid file and says so', () => {
      const r = cli(['validate'], files);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, 'prd.json: valid (4 stories, 1 passing)\n');
      assert.equal(r.stderr, '');
    });

    it('exits 1 and lists problems as file:line:column for a file with problems', () => {
      const r = cli(['validate', '--prd', 'cyclic.json'], files);
      assert.equal(r.code, 1);
      const lines = r.stdout.trimEnd().split('\n');
      // One problem per cycle, on its first dependency in the file.
      assert.equal(lines.length, 2);
      assert.equal(
        lines[0],
        `cyclic.json:${lineOf(cyclic, '"B"')}:${columnOf(cyclic, '"B"')}: error: Dependency cycle: A → B → A (each story waits on the one before it). None of them can become ready. [cycle]`,
      );
      assert.equal(lines[1], '1 error in cyclic.json');
    });

    it('prints {"problems":[{code,severity,message,storyId,line,column}]} with --json, 1-based positions', () => {
      const r = cli(['validate', '--json', '--prd', 'unknown.json'], files);
      assert.equal(r.code, 1);
      const out = json(r.stdout) as { problems: Record<string, unknown>[] };
      assert.deepEqual(keysOf(out), ['problems']);
      assert.equal(out.problems.length, 1);
      assert.deepEqual(keysOf(out.problems[0]), ['code', 'severity', 'message', 'storyId', 'line', 'column']);
      assert.deepEqual(out.problems[0], {
        code: 'unknown-blocked-by',
        severity: 'error',
        message: 'Story "A" is blocked by "GHOST", which is not a story in unknown.json.',
        storyId: 'A',
        line: lineOf(unknownOnly, '"GHOST"'),
        column: columnOf(unknownOnly, '"GHOST"'),
      });
    });

    it('prints an empty problems list with --json for a valid file', () => {
      const r = cli(['validate', '--json'], files);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, '{"problems":[]}\n');
    });

    it('uses storyId null for problems that are not about a story', () => {
      const r = cli(['validate', '--json', '--prd', 'empty.json'], files);
      assert.equal(r.code, 1);
      assert.deepEqual(json(r.stdout), {
        problems: [{ code: 'empty-file', severity: 'error', message: (json(r.stdout) as { problems: { message: string }[] }).problems[0].message, storyId: null, line: 1, column: 1 }],
      });
    });

    it('reports invalid UTF-8', () => {
      const r = cli(['validate', '--json', '--prd', 'latin1.json'], files);
      assert.equal(r.code, 1);
      const { problems } = json(r.stdout) as { problems: { code: string; line: number; column: number }[] };
      assert.deepEqual(
        problems.map((p) => [p.code, p.line, p.column]),
        [['encoding', 1, 30]],
      );
    });
  });

  describe('next', () => {
    it('prints the next story and exits 0', () => {
      const r = cli(['next'], files);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, 'US-002 - API (priority 2)\n');
      assert.equal(r.stderr, '');
    });

    it('prints {state,next,blocked} with --json', () => {
      const r = cli(['next', '--json'], files);
      assert.equal(r.code, 0);
      const out = json(r.stdout) as Record<string, unknown>;
      assert.deepEqual(keysOf(out), ['state', 'next', 'blocked']);
      assert.deepEqual(out, {
        state: 'ready',
        next: { id: 'US-002', title: 'API', priority: 2 },
        blocked: [{ id: 'US-003', waitingOn: ['US-002'] }],
      });
      assert.deepEqual(keysOf(out.next as object), ['id', 'title', 'priority']);
      assert.deepEqual(keysOf((out.blocked as object[])[0]), ['id', 'waitingOn']);
    });

    it('exits 0 with state complete when every story passes', () => {
      const r = cli(['next', '--json', '--prd', 'complete.json'], files);
      assert.equal(r.code, 0);
      assert.deepEqual(json(r.stdout), { state: 'complete', next: null, blocked: [] });
      const text = cli(['next', '--prd', 'complete.json'], files);
      assert.equal(text.stdout, 'All 1 stories pass.\n');
    });

    it('exits 2 when stories remain but none is ready (cycle), with problems on stderr', () => {
      const r = cli(['next', '--json', '--prd', 'cyclic.json'], files);
      assert.equal(r.code, 2);
      assert.deepEqual(json(r.stdout), {
        state: 'blocked',
        next: null,
        blocked: [
          { id: 'A', waitingOn: ['B'] },
          { id: 'B', waitingOn: ['A'] },
        ],
      });
      assert.match(r.stderr, /^cyclic\.json:\d+:\d+: error: Dependency cycle: A → B → A/);
    });

    it('explains why nothing is ready in text mode', () => {
      const r = cli(['next', '--prd', 'cyclic.json'], files);
      assert.equal(r.code, 2);
      assert.equal(
        r.stdout,
        'Nothing is ready: 2 stories remain, all blocked.\n' +
          '  A → B → A is a dependency cycle: none of these stories can become ready until one blockedBy entry is removed.\n',
      );
    });

    it('exits 2 when the only pending story waits on an unknown id', () => {
      const r = cli(['next', '--prd', 'unknown.json'], files);
      assert.equal(r.code, 2);
      assert.match(r.stdout, /A waits on "GHOST", which is not a story in unknown\.json\./);
      assert.match(r.stderr, /\[unknown-blocked-by\]/);
    });

    it('exits 0 when a story is ready even though other stories are in a cycle', () => {
      const text = makePrd([{ id: 'A', blockedBy: ['B'] }, { id: 'B', blockedBy: ['A'] }, { id: 'C', title: 'free' }]);
      const r = cli(['next', '--json'], { 'prd.json': text });
      assert.equal(r.code, 0);
      assert.equal((json(r.stdout) as { next: { id: string } }).next.id, 'C');
      assert.match(r.stderr, /\[cycle\]/);
    });

    for (const [file, code] of [
      ['syntax.json', 'syntax'],
      ['schema.json', 'schema'],
      ['dup.json', 'duplicate-id'],
      ['empty.json', 'empty-file'],
      ['latin1.json', 'encoding'],
    ]) {
      it(`exits 1 for an unreadable file (${code})`, () => {
        const r = cli(['next', '--prd', file], files);
        assert.equal(r.code, 1);
        assert.equal(r.stdout, '');
        assert.match(r.stderr, new RegExp(`\\[${code}\\]`));
        assert.match(r.stderr, new RegExp(`ralph-workbench: ${file.replace('.', '\\.')} cannot be read as a PRD; fix the problems above\\.\\n$`));
        const j = cli(['next', '--json', '--prd', file], files);
        assert.equal(j.code, 1);
        const out = json(j.stdout) as { next: unknown; problems: { code: string }[] };
        assert.equal(out.next, null);
        assert.ok(out.problems.some((p) => p.code === code));
      });
    }

    it('exits 2 with state "empty" for an empty story list, so a loop does not stop as finished (issue 9 item 4)', () => {
      const r = cli(['next', '--json', '--prd', 'empty-list.json'], files);
      assert.equal(r.code, 2);
      assert.deepEqual(json(r.stdout), { state: 'empty', next: null, blocked: [] });
      const text = cli(['next', '--prd', 'empty-list.json'], files);
      assert.equal(text.code, 2);
      assert.match(text.stdout, /empty-list\.json has no stories yet/);
    });

    it('prints "priority none" for a story without a priority (a warning: the file stays readable)', () => {
      const text = makePrd([{ id: 'A', priority: null }]);
      const r = cli(['next'], { 'prd.json': text });
      assert.equal(r.code, 0);
      assert.equal(r.stdout, 'A - Story A (priority none)\n');
      assert.match(r.stderr, /warning: Story A has no "priority"/);
      assert.equal(cli(['validate'], { 'prd.json': text }).code, 0, 'a file with only warnings validates');
    });
  });

  describe('ready', () => {
    it('lists the ready stories in run order', () => {
      const r = cli(['ready'], files);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, 'US-002 - API (priority 2)\nUS-004 - Docs (priority 2)\n');
    });

    it('prints {"ready":[{id,title,priority}]} with --json', () => {
      const r = cli(['ready', '--json'], files);
      assert.deepEqual(json(r.stdout), {
        ready: [
          { id: 'US-002', title: 'API', priority: 2 },
          { id: 'US-004', title: 'Docs', priority: 2 },
        ],
      });
    });

    it('says when no story is ready', () => {
      const r = cli(['ready', '--prd', 'cyclic.json'], files);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, 'No story is ready.\n');
    });

    it('exits 1 for an unreadable file', () => {
      const r = cli(['ready', '--json', '--prd', 'syntax.json'], files);
      assert.equal(r.code, 1);
      assert.deepEqual((json(r.stdout) as { ready: unknown[] }).ready, []);
    });
  });

  describe('errors and usage', () => {
    it('exits 1 with a clear message for a missing file', () => {
      for (const command of ['validate', 'next', 'ready']) {
        const r = cli([command, '--prd', 'nope/prd.json'], files);
        assert.equal(r.code, 1);
        assert.equal(r.stderr, 'ralph-workbench: cannot read nope/prd.json: no such file\n');
        assert.equal(r.stdout, '');
      }
    });

    it('reports a missing file in the --json shape too', () => {
      const r = cli(['validate', '--json', '--prd', 'nope.json'], files);
      assert.equal(r.code, 1);
      assert.deepEqual(json(r.stdout), {
        problems: [{ code: 'unreadable', severity: 'error', message: 'cannot read nope.json: no such file', storyId: null, line: 1, column: 1 }],
      });
    });

    it('says when the path is a directory', () => {
      let stderr = '';
      const code = runCli(['next', '--prd', 'dir'], {
        stdout: () => undefined,
        stderr: (s) => {
          stderr += s;
        },
        readFile: () => {
          const e: NodeJS.ErrnoException = new Error('EISDIR: illegal operation on a directory, read');
          e.code = 'EISDIR';
          throw e;
        },
      });
      assert.equal(code, 1);
      assert.equal(stderr, 'ralph-workbench: cannot read dir: is a directory\n');
    });

    it('exits 1 with usage for an unknown command', () => {
      const r = cli(['frobnicate'], files);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^ralph-workbench: unknown command "frobnicate"\n\nUsage: ralph-workbench <command> \[options\]/);
      assert.equal(r.stdout, '');
    });

    it('exits 1 with usage for an unknown option', () => {
      const r = cli(['next', '--frob'], files);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^ralph-workbench: unknown option --frob\n\nUsage:/);
    });

    it('exits 1 with usage for a missing --prd value or an extra argument', () => {
      assert.match(cli(['next', '--prd'], files).stderr, /--prd needs a file name/);
      assert.match(cli(['next', 'extra'], files).stderr, /unexpected argument extra/);
      assert.equal(cli(['next', 'extra'], files).code, 1);
    });

    it('exits 1 with usage on stderr without a command', () => {
      const r = cli([], files);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^Usage:/);
    });

    it('prints usage on stdout and exits 0 for --help and -h', () => {
      for (const flag of ['--help', '-h']) {
        const r = cli([flag], files);
        assert.equal(r.code, 0);
        assert.match(r.stdout, /^Usage: ralph-workbench <command> \[options\]/);
        assert.match(r.stdout, /2 when stories\s+remain but none is ready/);
        assert.equal(r.stderr, '');
      }
    });

    it('parses --prd FILE, --prd=FILE and the default', () => {
      assert.deepEqual(parseArgs(['next']), { command: 'next', prd: 'prd.json', json: false, help: false });
      assert.equal(parseArgs(['next', '--prd', 'a b.json']).prd, 'a b.json');
      assert.equal(parseArgs(['--prd=x.json', 'validate']).prd, 'x.json');
      assert.equal(parseArgs(['--json', 'ready']).json, true);
      assert.equal(cli(['next', '--prd=cyclic.json'], files).code, 2);
    });
  });
});

describe('CLI (whole process: node dist/cli.js)', function () {
  const built = path.resolve(__dirname, '../../dist/cli.js');
  let dir = '';
  let cliPath = '';

  before(function () {
    // Fail, never skip: a skipped whole-process tier would pass `npm test` without testing the CLI
    // users run (npm test builds dist/ before the unit tier).
    assert.ok(existsSync(built), 'dist/cli.js is missing: run `npm run build` first (npm test does) — the whole-process CLI tests need it');
    dir = mkdtempSync(path.join(tmpdir(), 'ralph-cli-'));
    // A private copy: a concurrent `npm run build` empties dist/ while it works.
    cliPath = copyBuiltCli(dir);
    writeFileSync(path.join(dir, 'prd.json'), valid);
    writeFileSync(path.join(dir, 'cyclic.json'), cyclic);
    writeFileSync(path.join(dir, 'broken.json'), '{"userStories": [');
  });

  after(() => {
    if (dir) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const run = (args: string[]) => spawnSync(process.execPath, [cliPath, ...args], { cwd: dir, encoding: 'utf8', timeout: 15000 });

  it('next --json reads ./prd.json by default and exits 0', () => {
    const r = run(['next', '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      state: 'ready',
      next: { id: 'US-002', title: 'API', priority: 2 },
      blocked: [{ id: 'US-003', waitingOn: ['US-002'] }],
    });
  });

  it('next exits 2 for a cycle and 1 for a broken file or a missing one', () => {
    const blocked = run(['next', '--prd', 'cyclic.json', '--json']);
    assert.equal(blocked.status, 2);
    assert.equal(JSON.parse(blocked.stdout).state, 'blocked');
    assert.match(blocked.stderr, /\[cycle\]/);
    assert.equal(run(['next', '--prd', 'broken.json']).status, 1);
    const missing = run(['next', '--prd', 'missing.json']);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /cannot read missing\.json: no such file/);
  });

  it('validate accepts the demo project', () => {
    const demo = path.resolve(__dirname, '../../examples/demo/prd.json');
    const r = run(['validate', '--prd', demo]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /: valid \(\d+ stories, \d+ passing\)\n$/);
    assert.equal(readFileSync(cliPath, 'utf8').startsWith('#!/usr/bin/env node'), true);
  });

  it('exits 1 with usage for an unknown command', () => {
    const r = run(['bogus']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /unknown command "bogus"/);
  });
});

describe('CLI command table (issue 7 §5)', () => {
  it('compact --help and pin --help print only their own usage', () => {
    const compact = cli(['compact', '--help']);
    assert.equal(compact.code, 0);
    assert.match(compact.stdout, /ralph-workbench compact/);
    assert.doesNotMatch(compact.stdout, /ralph-workbench pin/);
    const pin = cli(['pin', '-h']);
    assert.equal(pin.code, 0);
    assert.match(pin.stdout, /ralph-workbench pin/);
    assert.doesNotMatch(pin.stdout, /ralph-workbench compact/);
  });

  it('every command has its own --help, and the overall usage lists every command', () => {
    const all = cli(['--help']).stdout;
    for (const name of ['validate', 'next', 'ready', 'context', 'compact', 'pin']) {
      assert.match(all, new RegExp(`^  ${name} `, 'm'));
      const r = cli([name, '--help']);
      assert.equal(r.code, 0, name);
      assert.match(r.stdout, new RegExp(`ralph-workbench ${name}`), name);
      assert.doesNotMatch(r.stdout, /Usage: ralph-workbench <command>/, name);
    }
  });
});
