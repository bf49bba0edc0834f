/**
 * The recorder: the one writer of `.ralph/runs.jsonl` (one line per iteration, appended through the
 * path rule) and of `.ralph/last-prd.json`, the prd.json after the last iteration that archiving
 * copies when the next feature starts. No vscode: a headless run records the same way.
 */
import type { PrdAnalysis } from '../core/prd/index';
import { RUNS_FILE, type RunRecord, serializeRun } from '../core/runs/runs';
import { appendInside, writeInside } from './runFiles';

export const LAST_PRD_FILE = '.ralph/last-prd.json';

/** Records an iteration of the workspace folder at `root`. */
export async function recordIteration(root: string, line: RunRecord, after: PrdAnalysis | undefined): Promise<void> {
  if (after?.readable) {
    await writeInside(root, LAST_PRD_FILE, after.doc.text);
  }
  await appendInside(root, RUNS_FILE, serializeRun(line));
}
