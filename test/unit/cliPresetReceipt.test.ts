/**
 * The default claude preset through `ralph-workbench run` (whole process: node dist/cli.js), with a
 * pretend `claude` on PATH that prints Claude Code's real stream-json output: the preset pipes it
 * through the CLI's own render-stream (`${renderStream}`), so the log shows readable text and
 * runs.jsonl records the receipt; the agent's failure still fails the run through the pipe.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseRuns, type RunRecord } from '../../src/core/runs/runs';
import { copyBuiltCli } from './helpers';
import { cleanRepos, makeRepo } from './parallelRepo';

const PRETEND = path.resolve(__dirname, '../fixtures/pretend-claude.sh');
const OUTPUT = path.resolve(__dirname, '../fixtures/agent-output');

describe('CLI run (whole process): the claude preset prints a receipt through the bundled render-stream', function () {
  this.timeout(120_000);
  const built = path.resolve(__dirname, '../../dist/cli.js');
  let cli = '';
  let bin = '';

  before(function () {
    assert.ok(existsSync(built), 'dist/cli.js is missing: run `npm run build` first (npm test does) — the whole-process CLI tests need it');
    // A folder with a space and a quote: the script's path is quoted on the command line.
    const dir = path.join(path.dirname(makeRepo()), "the o'cli dir");
    mkdirSync(dir);
    cli = copyBuiltCli(dir);
    bin = path.join(path.dirname(dir), 'bin');
    mkdirSync(bin);
    // The pretend `claude` (test/fixtures/pretend-claude.sh): its stream-json only when the preset asks for it.
    writeFileSync(path.join(bin, 'claude'), `#!/bin/sh\nexec sh ${JSON.stringify(PRETEND)} "$@"\n`);
    chmodSync(path.join(bin, 'claude'), 0o755);
  });
  after(cleanRepos);

  const run = (root: string, env: Record<string, string>) =>
    spawnSync(process.execPath, [cli, 'run', '--parallel', '1', '--loop', '1'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, ...env },
      timeout: 110_000,
    });
  const runsOf = (root: string): RunRecord[] => [...parseRuns(readFileSync(path.join(root, '.ralph', 'runs.jsonl'), 'utf8')).runs];
  const logOf = (root: string): string => {
    const dir = path.join(root, '.ralph', 'logs');
    return readdirSync(dir).map((f) => readFileSync(path.join(dir, f), 'utf8')).join('\n');
  };

  it("records receipt: parsed with the fixture's cost, tokens, model and turns, and the log shows the run readably (no raw JSON)", function () {
    if (process.platform === 'win32') {
      this.skip();
    }
    const root = makeRepo();
    const r = run(root, { FAKE_AGENT_MODE: 'pass', PRETEND_STREAM: path.join(OUTPUT, 'claude/stream-json.jsonl') });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const [line] = runsOf(root);
    assert.deepEqual(
      [line.agent, line.outcome, line.receipt, line.cost, line.tokens, line.model, line.turns],
      ['claude', 'passed', 'parsed', 0.033231000000000004, { input: 4, output: 107, cacheRead: 38897, cacheWrite: 1774 }, 'claude-opus-4-6', 2],
    );
    const log = logOf(root);
    assert.match(log, /● claude-opus-4-6 session started/);
    assert.match(log, /Created `stream-test\.txt` with the content "stream works"\./);
    assert.match(log, /■ done · 2 turns · \$0\.03/);
    assert.doesNotMatch(log, /\{"type":"result"/);
  });

  it('an agent that fails mid-stream fails the run although render-stream is the last command of the pipe', function () {
    if (process.platform === 'win32') {
      this.skip();
    }
    const root = makeRepo();
    const r = run(root, { FAKE_AGENT_MODE: 'fail', PRETEND_STREAM: path.join(OUTPUT, 'claude/stream-json-truncated.jsonl') });
    assert.match(r.stdout, /US-001: agent ended — failed \(exit 1\)/, `${r.stdout}\n${r.stderr}`);
    const [line] = runsOf(root);
    assert.deepEqual([line.outcome, line.exitCode], ['failed', 1]);
    assert.match(logOf(root), /fake-agent: typecheck failed/);
    assert.match(logOf(root), /■ the agent's stream ended without a result/);
  });
});
