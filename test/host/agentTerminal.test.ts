/**
 * An agent's terminal after its run (issue 18 item 16): on a busy machine the shell starts late,
 * and the terminal executor used to give up on shell integration 4 s after creating the terminal
 * and send `…; exit $?`, so the terminal closed with the agent and the user lost its output.
 * Here the terminal's shell is slow on purpose (a `bash` wrapper that sleeps before it execs bash:
 * named bash, so VS Code still injects its shell integration), or has shell integration turned off;
 * either way the terminal must stay open after the run, and the run must record the agent's exit code.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, workspaceFolder } from './helpers';
import { log } from './log';
import {
  ensureGitWorkspace,
  type Pristine,
  ralphTerminals,
  resetSettings,
  restoreWorkspace,
  runCommand,
  runsJsonl,
  stopAndCloseTerminals,
  useFakeAgent,
  watchTerminals,
} from './runHelpers';

const US006_TERMINAL = 'Ralph: US-006 — Sort tasks by priority';
/** Longer than the 4 s the executor used to wait from the terminal's creation. */
const SHELL_START_DELAY_S = 6;
const TERMINAL_KEYS = ['profiles.linux', 'defaultProfile.linux', 'shellIntegration.enabled'];

suite('agent terminals stay open after the run, however late the shell starts (issue 18 item 16)', function () {
  this.timeout(90_000);
  let pristine: Pristine;
  let scratch: string;

  const terminalSettings = () => vscode.workspace.getConfiguration('terminal.integrated', workspaceFolder().uri);

  suiteSetup(async function () {
    if (process.platform !== 'linux') {
      this.skip(); // the slow shell is a bash wrapper and the profile a Linux one
    }
    await api();
    pristine = ensureGitWorkspace();
  });

  setup(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-slow-shell-'));
  });

  teardown(async function () {
    this.timeout(60_000);
    await stopAndCloseTerminals();
    for (const key of TERMINAL_KEYS) {
      if (terminalSettings().inspect(key)?.workspaceValue !== undefined) {
        await terminalSettings().update(key, undefined, vscode.ConfigurationTarget.Workspace);
      }
    }
    await resetSettings();
    await restoreWorkspace(pristine);
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** Makes the terminals' default shell a `bash` that sleeps `seconds` before it starts. */
  async function useSlowShell(seconds: number): Promise<void> {
    const realBash = execFileSync('sh', ['-c', 'command -v bash'], { encoding: 'utf8' }).trim();
    const wrapper = path.join(scratch, 'bash');
    fs.writeFileSync(wrapper, `#!/bin/sh\nsleep ${seconds}\nexec '${realBash}' "$@"\n`, { mode: 0o755 });
    await terminalSettings().update('profiles.linux', { 'ralph-slow-bash': { path: wrapper } }, vscode.ConfigurationTarget.Workspace);
    await terminalSettings().update('defaultProfile.linux', 'ralph-slow-bash', vscode.ConfigurationTarget.Workspace);
  }

  /** Runs the next story (US-006) and returns its terminal and its runs.jsonl line. */
  async function runUs006(): Promise<{ terminal: vscode.Terminal; exitCode: number | null; outcome: string }> {
    const t0 = performance.now();
    let integrationMs: number | undefined;
    const sub = vscode.window.onDidChangeTerminalShellIntegration((e) => (integrationMs ??= e.terminal.name === US006_TERMINAL ? performance.now() - t0 : undefined));
    const { value: r, opened, ms } = await watchTerminals(() => runCommand('ralph.runNext')).finally(() => sub.dispose());
    log(`      terminal opened ${Math.round(opened[0]?.atMs ?? NaN)} ms, shell integration ${integrationMs === undefined ? 'never' : `${Math.round(integrationMs)} ms`}, run ended ${Math.round(ms)} ms after the command`);
    assert.equal(r.iterations.length, 1, r.stop.message);
    assert.deepEqual(opened.map((o) => o.name), [US006_TERMINAL]);
    const runs = runsJsonl();
    assert.equal(runs.length, 1, JSON.stringify(runs));
    return { terminal: opened[0].terminal, exitCode: runs[0].exitCode, outcome: runs[0].outcome };
  }

  function assertStillOpen(terminal: vscode.Terminal): void {
    assert.equal(terminal.exitStatus, undefined, `the agent's terminal closed (exit status ${JSON.stringify(terminal.exitStatus)}): the user can no longer read the agent's output`);
    assert.ok(ralphTerminals().includes(terminal), `the agent's terminal is gone; open: ${JSON.stringify(ralphTerminals().map((t) => t.name))}`);
  }

  test(`a shell that starts ${SHELL_START_DELAY_S} s late: the agent runs, its terminal stays open and the run records exit 0`, async () => {
    await useSlowShell(SHELL_START_DELAY_S);
    await useFakeAgent({ mode: 'pass' });
    const { terminal, exitCode, outcome } = await runUs006();
    assert.equal(exitCode, 0);
    assert.equal(outcome, 'passed');
    assertStillOpen(terminal);
  });

  test('shell integration turned off (and a slow shell): the terminal stays open and the run records the agent\'s exit code (3)', async () => {
    await useSlowShell(2);
    await terminalSettings().update('shellIntegration.enabled', false, vscode.ConfigurationTarget.Workspace);
    await useFakeAgent({ mode: 'fail' });
    const { terminal, exitCode, outcome } = await runUs006();
    assert.equal(exitCode, 3);
    assert.equal(outcome, 'failed');
    assertStillOpen(terminal);
  });
});
