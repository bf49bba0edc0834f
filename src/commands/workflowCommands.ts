/**
 * Add GitHub Actions Workflow (issue 20): `.github/workflows/ralph.yml` for the folder's agent
 * preset, shown as a diff against the current file (or an empty one) before anything is written.
 * A file the user edited since we generated it is kept unless they press "Replace my edits" (the
 * rule of src/node/github/workflowFile.ts, shared with `ralph-workbench github workflow`). Needs a
 * trusted workspace (needs.ts: it writes a file that runs on GitHub).
 */
import * as vscode from 'vscode';
import { agentSetup, WORKFLOW_PATH } from '../core/github/workflow';
import { proposedWorkflow, readWorkflowFile, workflowFileState, workflowOptionsFrom, writeWorkflowFile } from '../node/github/workflowFile';
import { Commands } from '../constants';
import { readSetting } from '../services/settings';
import { pickFolder } from '../util/folders';
import { previewChange, type ProposedContentProvider } from '../views/proposedContent';
import { commandRegistrar } from './registrar';

export interface WorkflowCommandDeps {
  readonly log: vscode.LogOutputChannel;
  readonly proposed: ProposedContentProvider;
}

export function registerWorkflowCommands(context: vscode.ExtensionContext, deps: WorkflowCommandDeps): void {
  const reg = commandRegistrar(context, deps.log);
  reg(Commands.githubAddWorkflow, async (hint?: unknown) => {
    const folder = await pickFolder({ hint, placeHolder: 'Add the GitHub Actions workflow to which folder?' });
    if (!folder) {
      return;
    }
    const settings = {
      agentPreset: readSetting('agentPreset', folder.uri),
      agentCommand: readSetting('agentCommand', folder.uri),
      prdPath: readSetting('prdPath', folder.uri),
      parallelMaxAgents: readSetting('parallelMaxAgents', folder.uri),
    };
    const root = folder.uri.fsPath;
    const text = proposedWorkflow(settings);
    const current = await readWorkflowFile(root);
    const state = workflowFileState(current, text);
    if (state === 'same') {
      void vscode.window.showInformationMessage(`${WORKFLOW_PATH} is up to date.`);
      return;
    }
    const fileUri = vscode.Uri.joinPath(folder.uri, WORKFLOW_PATH);
    const left = current === undefined ? deps.proposed.propose(fileUri, '') : fileUri;
    const edited = state === 'edited';
    const question = edited
      ? `You edited ${WORKFLOW_PATH} since Ralph generated it (or wrote it yourself). Your edits are kept unless you replace them with the workflow shown.`
      : `Write ${WORKFLOW_PATH} for the ${workflowOptionsFrom(settings).preset} agent?`;
    const write = await previewChange(deps.proposed, left, text, `${WORKFLOW_PATH} ↔ generated (preview)`, question, edited ? 'Replace my edits' : 'Write');
    if (!write) {
      deps.log.info(`[workflow] ${WORKFLOW_PATH} ${edited ? 'kept as edited' : 'not written'} (${folder.name})`);
      return;
    }
    await writeWorkflowFile(root, text);
    const secret = agentSetup(workflowOptionsFrom(settings).preset).secret;
    void vscode.window.showInformationMessage(
      `Wrote ${WORKFLOW_PATH}. Commit and push it to the default branch${secret ? `, and add the repository secret ${secret} (Settings → Secrets and variables → Actions)` : ''}.`,
    );
  });
}
