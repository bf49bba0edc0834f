/**
 * Where an agent run in a terminal without shell integration leaves its exit status: a file in a
 * private temporary folder (never the workspace), named to the shell by an environment variable of
 * the terminal, so the command line holds only `$RALPH_EXIT_STATUS_FILE`, never a path's bytes.
 * The shell writes the status after the agent and stays open for the user to read the output;
 * the file is watched (fs.watch through watchFileInside, with a slow poll as a safety net for a
 * file system whose events are lost).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { watchFileInside } from './fileWatch';

/** The variable of the agent's terminal that names the file. */
export const EXIT_STATUS_VARIABLE = 'RALPH_EXIT_STATUS_FILE';
const FILE_NAME = 'status';
const POLL_MS = 1000;

export interface ExitStatusFile {
  /** The terminal's environment entry naming the file. */
  readonly env: Readonly<Record<string, string>>;
  /** Settles with the status once the shell wrote it (never, if it does not). */
  readonly status: Promise<number>;
  /** The status if it was written already (for a terminal that closed meanwhile). */
  readNow(): number | undefined;
  /** Stops watching and removes the folder. */
  dispose(): void;
}

/** Reads a whole status line ("3\n"); a partial write is not a status yet. */
export function parseExitStatus(text: string): number | undefined {
  const m = /^\s*(-?\d{1,10})\s*\n/.exec(text);
  return m ? Number(m[1]) : undefined;
}

export function createExitStatusFile(): ExitStatusFile {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-exit-'));
  const file = path.join(dir, FILE_NAME);
  const readNow = (): number | undefined => {
    try {
      return parseExitStatus(fs.readFileSync(file, 'utf8'));
    } catch {
      return undefined;
    }
  };
  let stop = (): void => undefined;
  const status = new Promise<number>((resolve) => {
    const check = (): void => {
      const code = readNow();
      if (code !== undefined) {
        stop();
        resolve(code);
      }
    };
    const watch = watchFileInside(dir, FILE_NAME, check);
    const poll = setInterval(check, POLL_MS);
    stop = () => {
      clearInterval(poll);
      watch?.close();
    };
  });
  return {
    env: { [EXIT_STATUS_VARIABLE]: file },
    status,
    readNow,
    dispose: () => {
      stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * What follows the agent's command on the line sent to the shell: write its status to the file.
 * The shell stays open afterwards (no `exit`), so the agent's output remains readable.
 */
export function exitStatusSuffix(shell: string): string {
  const name = path.basename(shell.toLowerCase().replace(/\\/g, '/'));
  if (/^(pwsh|powershell)(\.exe)?$/.test(name)) {
    return `; Set-Content -LiteralPath $env:${EXIT_STATUS_VARIABLE} -Value ([int]$LASTEXITCODE)`;
  }
  if (name === 'cmd.exe' || name === 'cmd') {
    // `%^ERRORLEVEL%` survives the line's own expansion and is expanded by `call`, after the agent ran.
    return ` & >"%${EXIT_STATUS_VARIABLE}%" call echo %^ERRORLEVEL%`;
  }
  if (name === 'fish') {
    return `; echo $status > "$${EXIT_STATUS_VARIABLE}"`;
  }
  return `; printf '%s\\n' "$?" > "$${EXIT_STATUS_VARIABLE}"`;
}
