/**
 * `ralph-workbench github workflow`: writes `.github/workflows/ralph.yml` for the workspace's agent
 * (its .vscode/settings.json, else the defaults). A file the user edited is kept unless --force
 * (the rule of src/node/github/workflowFile.ts, shared with the VS Code command).
 */
import * as path from 'node:path';
import { AGENT_PRESETS } from '../../core/agents/presets';
import { errorMessage } from '../../core/errorMessage';
import { agentSetup, WORKFLOW_PATH } from '../../core/github/workflow';
import { oneLine } from '../../core/output';
import { proposedWorkflow, readWorkflowFile, workflowFileState, workflowOptionsFrom, writeWorkflowFile } from '../../node/github/workflowFile';
import { readWorkspaceSettings } from '../../node/workspaceSettings';
import type { CliIo } from '../io';
import { subcommandArgs } from './args';

const PRESET_IDS = AGENT_PRESETS.map((p) => p.id);

export const workflowUsage = `Usage: ralph-workbench github workflow [--agent PRESET] [--force] [--dry-run] [--root DIR]

Write ${WORKFLOW_PATH}: the GitHub Actions workflow that runs a dispatched story with your agent,
opens its pull request, and after the merge dispatches the stories that became ready. The agent
and prd.json's path come from .vscode/settings.json (ralph.agent.preset, ralph.agent.command,
ralph.prdPath), else the defaults. A file you edited since it was generated is kept.

Options:
  --agent PRESET   The agent to install on the runner (${PRESET_IDS.join(', ')})
  --force          Replace the file even when you edited it (your edits are lost)
  --dry-run        Print the workflow instead of writing it
  --root DIR       The workspace folder (default: the current folder)
`;

export async function runWorkflowCommand(argv: readonly string[], io: CliIo, cwd = process.cwd()): Promise<number> {
  const prefix = 'ralph-workbench github workflow';
  const parsed = subcommandArgs(argv, { agent: { type: 'string' }, force: { type: 'boolean' }, 'dry-run': { type: 'boolean' }, root: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
  if ('error' in parsed) {
    io.stderr(`${prefix}: ${parsed.error}\n\n${workflowUsage}`);
    return 1;
  }
  const { values } = parsed;
  if (values.help) {
    io.stdout(workflowUsage);
    return 0;
  }
  const agent = values.agent as string | undefined;
  if (agent !== undefined && !PRESET_IDS.includes(agent as (typeof PRESET_IDS)[number])) {
    io.stderr(`${prefix}: unknown agent preset "${oneLine(agent)}" (one of ${PRESET_IDS.join(', ')})\n`);
    return 1;
  }
  const root = path.resolve(cwd, (values.root as string | undefined) ?? '.');
  const ws = readWorkspaceSettings(root);
  for (const p of ws.problems) {
    io.stderr(`${prefix}: ${p.message}\n`);
  }
  const settings = agent !== undefined ? { ...ws.values, agentPreset: agent, agentCommand: agent === 'custom' ? ws.values.agentCommand : '' } : ws.values;
  const proposed = proposedWorkflow(settings);
  if (values['dry-run']) {
    io.stdout(proposed);
    return 0;
  }
  try {
    const state = workflowFileState(await readWorkflowFile(root), proposed);
    if (state === 'same') {
      io.stdout(`${WORKFLOW_PATH} is up to date.\n`);
      return 0;
    }
    if (state === 'edited' && !values.force) {
      io.stderr(
        `${prefix}: kept ${WORKFLOW_PATH}: it was edited since ralph-workbench generated it (or written by hand). ` +
          'Run with --dry-run to see the new text, or --force to replace the file (your edits are lost).\n',
      );
      return 1;
    }
    await writeWorkflowFile(root, proposed);
  } catch (e) {
    io.stderr(`${prefix}: could not write ${WORKFLOW_PATH}: ${oneLine(errorMessage(e))}\n`);
    return 1;
  }
  const secret = agentSetup(workflowOptionsFrom(settings).preset).secret;
  io.stdout(
    `Wrote ${WORKFLOW_PATH}. Commit and push it to the default branch` +
      (secret ? `, and add the repository secret ${secret} (Settings → Secrets and variables → Actions)` : '') +
      '.\n',
  );
  return 0;
}
