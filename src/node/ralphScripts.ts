/**
 * The workspace's loop scripts (`ralph.sh`, `scripts/ralph/ralph.sh`) that are there: the one
 * lookup behind the `ralphSh` preset, for the extension's runs and the CLI's `run`. Only a regular
 * file counts (after following links): a folder named `ralph.sh` is not a script, and taking it
 * would plan `bash ./ralph.sh 1`, which fails only once the agent runs.
 */
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { RALPH_SCRIPTS } from '../core/agents/presets';

/** The loop scripts that exist in the folder `root`, workspace-relative. */
export function ralphScripts(root: string): Set<string> {
  return new Set(RALPH_SCRIPTS.filter((rel) => isFile(path.join(root, rel))));
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false; // missing, a parent that is a file, no permission: no script there
  }
}
