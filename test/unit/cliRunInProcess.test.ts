/**
 * `ralph-workbench run` in this process (runRun with a captured io), on real temporary
 * repositories and folders, with the pretend agent CLI (test/fixtures/fake-agent.mjs) as a real
 * child process: which agent command a run plans, and the serial loop that `--parallel 1` runs.
 * The whole-process runs (dist/cli.js, signals) are in cliRun.test.ts.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Interrupts, runRun } from '../../src/cli/commands/run';
import type { CliIo } from '../../src/cli/io';
import { cleanRepos, git, makeRepo, passing } from './parallelRepo';

const FAKE = path.resolve(__dirname, '../fixtures/fake-agent.mjs');

/** What a run printed, and a way to interrupt it as SIGINT would. */
export function capture(): { io: CliIo; out: { stdout: string; stderr: string }; interrupts: Interrupts & { fire(signal: string): void } } {
  const out = { stdout: '', stderr: '' };
  let handler: ((signal: string) => void) | undefined;
  return {
    out,
    io: { stdout: (t: string) => void (out.stdout += t), stderr: (t: string) => void (out.stderr += t), readFile: () => { throw new Error('run reads no files through io'); } },
    interrupts: {
      on: (h) => {
        handler = h;
        return () => (handler = undefined);
      },
      exit: () => undefined,
      fire: (signal) => handler?.(signal),
    },
  };
}

describe('CLI run in-process: the agent command', function () {
  this.timeout(120_000);
  after(cleanRepos);

  it('the ralphSh preset runs scripts/ralph/ralph.sh when ./ralph.sh is a folder, not a script (one lookup with the extension)', async () => {
    const root = makeRepo();
    mkdirSync(path.join(root, 'ralph.sh'));
    writeFileSync(path.join(root, 'ralph.sh', 'README.md'), 'notes, not the loop script\n');
    mkdirSync(path.join(root, 'scripts', 'ralph'), { recursive: true });
    const script = path.join(root, 'scripts', 'ralph', 'ralph.sh');
    writeFileSync(script, `#!/usr/bin/env bash\nFAKE_AGENT_MODE=pass exec node ${JSON.stringify(FAKE)} "$RALPH_PROMPT_FILE"\n`);
    chmodSync(script, 0o755);
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'the loop script');
    const { io, out, interrupts } = capture();
    const code = await runRun(['--agent', 'ralphSh', '--parallel', '2', '--story', 'US-001'], io, interrupts, root);
    assert.equal(code, 0, `${out.stdout}\n${out.stderr}`);
    assert.deepEqual(passing(root), ['US-001']);
  });
});
