/**
 * The exit status of an agent run in a terminal without shell integration
 * (src/node/exitStatusFile.ts): a real shell runs the command with the suffix the terminal executor
 * sends, stays alive, and the status it writes to the file named by its environment is seen.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createExitStatusFile, EXIT_STATUS_VARIABLE, exitStatusSuffix, parseExitStatus } from '../../src/node/exitStatusFile';

describe('the exit status file of an agent in a terminal without shell integration', () => {
  it('a POSIX shell writes the agent\'s status after the command and goes on running; the status settles with it', async function () {
    if (process.platform === 'win32') {
      this.skip();
    }
    const f = createExitStatusFile();
    // The shell reads the line on stdin like a terminal's shell, then waits for more (it does not exit).
    const shell = spawn('sh', [], { env: { ...process.env, ...f.env }, stdio: ['pipe', 'ignore', 'ignore'] });
    try {
      shell.stdin.write(`sh -c 'exit 7'${exitStatusSuffix('/bin/bash')}\n`);
      assert.equal(await f.status, 7);
      assert.equal(f.readNow(), 7);
      assert.equal(shell.exitCode, null, 'the shell is still running: the terminal stays open');
    } finally {
      shell.kill();
      f.dispose();
    }
  });

  it('a partial write is no status; a whole line is; the folder goes with dispose', () => {
    const f = createExitStatusFile();
    const file = f.env[EXIT_STATUS_VARIABLE];
    assert.ok(path.isAbsolute(file));
    assert.equal(f.readNow(), undefined);
    writeFileSync(file, '3');
    assert.equal(f.readNow(), undefined);
    writeFileSync(file, '3\n');
    assert.equal(f.readNow(), 3);
    f.dispose();
    assert.equal(existsSync(path.dirname(file)), false);
  });

  it('parses a status line from each shell\'s writer (cmd.exe adds CR, PowerShell may add spaces)', () => {
    assert.equal(parseExitStatus('0\n'), 0);
    assert.equal(parseExitStatus('130\r\n'), 130);
    assert.equal(parseExitStatus(' -1073741510 \r\n'), -1073741510);
    assert.equal(parseExitStatus(''), undefined);
    assert.equal(parseExitStatus('exit\n'), undefined);
  });

  it('the suffix names the file only through the variable, in each shell\'s syntax', () => {
    for (const shell of ['/bin/bash', '/usr/bin/zsh', 'C:\\Program Files\\PowerShell\\7\\pwsh.exe', 'C:\\Windows\\System32\\cmd.exe', '/usr/bin/fish']) {
      const s = exitStatusSuffix(shell);
      assert.ok(s.includes(EXIT_STATUS_VARIABLE), `${shell}: ${s}`);
      assert.doesNotMatch(s, /\bexit\b/, `${shell}: the shell must stay open: ${s}`);
    }
  });
});
