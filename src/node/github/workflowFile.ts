/**
 * `.github/workflows/ralph.yml` on disk: the stamp that tells our text from the user's edits, and
 * the write. One rule for the CLI (`ralph-workbench github workflow`) and the VS Code command (Add
 * GitHub Actions Workflow): a file we generated and nobody changed is replaced freely; a file the
 * user edited (its text no longer hashes to its stamp), or wrote without us (no stamp), is kept
 * unless the user asks to replace it.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { renderWorkflow, type WorkflowOptions, WORKFLOW_PATH } from '../../core/github/workflow';
import type { AgentPresetId } from '../../core/agents/presets';
import { getPreset } from '../../core/agents/presets';
import type { SettingValues } from '../../core/settingKeys';
import { writeFileAtomically } from '../atomicWrite';
import { resolveInsideSync, writableInside } from '../workspacePath';

export const STAMP_PREFIX = '# ralph-workbench: generated ';

/** The first 12 hex digits of the SHA-256 of the text (line ends as LF). */
function hash12(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex').slice(0, 12);
}

/** The workflow text with its stamp line on top. */
export function stampedWorkflow(body: string): string {
  return `${STAMP_PREFIX}${hash12(body)}\n${body}`;
}

/**
 * What is there now, beside what we would write:
 * - `absent`: no file;
 * - `same`: the file is the proposed text already;
 * - `ours`: we generated it and nobody edited it since (it may be replaced);
 * - `edited`: the user changed it after we wrote it, or wrote it without us (kept unless asked).
 */
export type WorkflowFileState = 'absent' | 'same' | 'ours' | 'edited';

export function workflowFileState(current: string | undefined, proposed: string): WorkflowFileState {
  if (current === undefined) {
    return 'absent';
  }
  if (current.replace(/\r\n/g, '\n') === proposed.replace(/\r\n/g, '\n')) {
    return 'same';
  }
  const nl = current.indexOf('\n');
  const first = (nl < 0 ? current : current.slice(0, nl)).replace(/\r$/, '');
  if (!first.startsWith(STAMP_PREFIX)) {
    return 'edited';
  }
  return first.slice(STAMP_PREFIX.length).trim() === hash12(nl < 0 ? '' : current.slice(nl + 1)) ? 'ours' : 'edited';
}

/** The workflow options the settings choose (the agent preset and command, prd.json's path, max-parallel). */
export function workflowOptionsFrom(s: Pick<SettingValues, 'agentPreset' | 'agentCommand' | 'prdPath' | 'parallelMaxAgents'>): WorkflowOptions {
  const preset = (getPreset(s.agentPreset)?.id ?? 'claude') as AgentPresetId;
  // A command line overrides any preset in a local run: on Actions it is the custom agent too.
  const custom = s.agentCommand.trim() !== '';
  return { preset: custom ? 'custom' : preset, agentCommand: custom ? s.agentCommand : undefined, prdPath: s.prdPath, maxParallel: s.parallelMaxAgents };
}

/** The stamped text the settings generate. */
export function proposedWorkflow(s: Parameters<typeof workflowOptionsFrom>[0]): string {
  return stampedWorkflow(renderWorkflow(workflowOptionsFrom(s)));
}

/** The workflow file's absolute path in a workspace folder. */
export function workflowFilePath(root: string): string {
  return resolveInsideSync(root, WORKFLOW_PATH, { what: 'workflow file' });
}

/** The file's text, or undefined when there is none. */
export async function readWorkflowFile(root: string): Promise<string | undefined> {
  try {
    return await readFile(workflowFilePath(root), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw e;
  }
}

/** Writes the file at once (a reader sees the old text or the new one, never half of it). */
export async function writeWorkflowFile(root: string, text: string): Promise<string> {
  await mkdir(path.dirname(workflowFilePath(root)), { recursive: true });
  const file = await writableInside(root, WORKFLOW_PATH, { what: 'workflow file' });
  await writeFileAtomically(file, text);
  return file;
}
