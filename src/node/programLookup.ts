/**
 * Finding a program the way the agent's terminal will: its PATH (and PATHEXT on Windows) is the
 * host's, changed by `terminal.integrated.env.<platform>` (passed in by the caller, which reads
 * settings), and a candidate counts only when it is a file the user may execute.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { type PathLookup, terminalSearchPath } from '../core/agents/shell';

/** True for a regular file this process may execute (on Windows, any file: PATHEXT decides). */
export function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) {
      return false;
    }
    if (process.platform !== 'win32') {
      accessSync(p, constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

/** How the terminal finds programs, given the user's `terminal.integrated.env.<platform>` (if any). */
export function terminalLookup(terminalEnv: Readonly<Record<string, unknown>> | undefined): Omit<PathLookup, 'cwd'> {
  const platform = process.platform === 'win32' ? 'win32' : 'posix';
  const { path, pathExt } = terminalSearchPath(process.env, terminalEnv, platform);
  return { path, pathExt, platform, exists: isExecutableFile };
}
