/**
 * The workspace preparer in the extension: before a run, the dirty-working-tree question; before
 * each iteration, the headless preparer (src/node/preparer.ts: the agent command, the PRD's branch
 * and the archive, `.ralph/` ignoring itself, auto-compaction, the prompt file) with what only the
 * editor knows: unsaved text, the archive's notification, the terminal's shell and PATH.
 */
import * as vscode from 'vscode';
import { shellKindOf, type ShellKind } from '../../core/agents/presets';
import type { IssuePlanInput } from '../../core/artifacts/promptSection';
import type { PreparedIteration } from '../../core/loop/engine';
import { type AgentCommandPlan, planAgentCommand } from '../../core/loop/iteration';
import type { RunStep, StopStep } from '../../core/loop/loop';
import type { PrdAnalysis } from '../../core/prd/index';
import { fewPaths } from '../../core/runs/runs';
import { GitRepo } from '../../node/gitRepo';
import {
  type FolderPrepContext,
  prepareIteration as prepareInFolder,
  RunError,
  storyPrompt as folderStoryPrompt,
} from '../../node/preparer';
import { terminalLookup } from '../../node/programLookup';
import { ralphScripts } from '../../node/ralphScripts';
import { hasUnsavedChanges } from '../../util/documents';
import { bundledRenderStream } from './bundledCli';
import { type DirtyTreeAnswer, openSourceControl, showArchived, showStashed } from '../runMessages';
import { type RalphSettings, readTerminalEnv } from '../settings';
import { joinRelative } from '../workspaceFiles';

export { RunError };

export interface PrepareContext {
  readonly folder: vscode.WorkspaceFolder;
  readonly settings: RalphSettings;
  readonly log: vscode.LogOutputChannel;
  /** The story's GitHub issue plan for the prompt (the GitHub layer), if any. */
  readonly issuePlanFor?: (folder: vscode.WorkspaceFolder, storyId: string) => Promise<IssuePlanInput | undefined>;
}

/**
 * Before a run or loop: a working tree with uncommitted changes (`.ralph/` aside) would end up in
 * the agent's commit, so the user decides. Returns a stop step when nothing should run.
 */
export async function checkWorkingTree(
  folder: vscode.WorkspaceFolder,
  answer: DirtyTreeAnswer,
  log: vscode.LogOutputChannel,
): Promise<{ stop?: StopStep; runAnyway: boolean }> {
  const git = await GitRepo.open(folder.uri.fsPath);
  const dirty = git ? await git.uncommittedFiles() : [];
  if (!git || dirty.length === 0) {
    return { runAnyway: false };
  }
  const choice = await answer(folder, dirty);
  log.info(`[runner] uncommitted changes before the run (${fewPaths(dirty)}): ${choice}`);
  switch (choice) {
    case 'run':
      return { runAnyway: true };
    case 'stash': {
      const message = await git.stash(`ralph: uncommitted changes before the run of ${new Date().toISOString()}`);
      showStashed(message);
      return { runAnyway: false };
    }
    case 'commit':
      openSourceControl();
      return { runAnyway: false, stop: { kind: 'stop', reason: 'cancelled', message: 'Not started: commit your changes first, then run again.', details: dirty } };
    case 'cancel':
      return { runAnyway: false, stop: { kind: 'stop', reason: 'cancelled', message: 'Not started: the working tree has uncommitted changes.', details: dirty } };
  }
}

/** Makes the folder ready for the step's story and plans the agent command (src/node/preparer.ts, with the editor's hooks). */
export function prepareIteration(ctx: PrepareContext, step: RunStep, before: PrdAnalysis, allowDirtyCheckout: boolean, presetId?: string): Promise<PreparedIteration> {
  return prepareInFolder(folderContext(ctx), step, before, allowDirtyCheckout, presetId);
}

/**
 * The agent command for a story, from the settings, with its program looked up the way the
 * agent's terminal will find it (its PATH: the host's, changed by terminal.integrated.env.*).
 */
export async function planAgent(ctx: PrepareContext, storyId: string, promptPath: string, presetId?: string): Promise<AgentCommandPlan> {
  const { folder, settings } = ctx;
  const shell: ShellKind = shellKindOf(vscode.env.shell || '') ?? (process.platform === 'win32' ? 'powershell' : 'posix');
  const scripts = ralphScripts(folder.uri.fsPath);
  return planAgentCommand({
    presetId: presetId ?? settings.agentPreset,
    command: presetId !== undefined ? '' : settings.agentCommand,
    shell,
    exists: (p) => scripts.has(p),
    vars: { promptFile: promptPath, storyId, workspaceFolder: folder.uri.fsPath },
    lookup: terminalLookup(readTerminalEnv(folder.uri)),
    renderStream: bundledRenderStream(),
  });
}

/** The prompt of a story, from the one prompt-inputs reader (every path inside the folder, reads bounded). */
export function storyPrompt(ctx: PrepareContext, analysis: PrdAnalysis, storyId: string): Promise<string> {
  return folderStoryPrompt(folderContext(ctx), analysis, storyId);
}

/** The headless preparer's context for a workspace folder, with what only the editor knows. */
export function folderContext(ctx: PrepareContext): FolderPrepContext {
  const { folder } = ctx;
  return {
    root: folder.uri.fsPath,
    settings: ctx.settings,
    log: ctx.log,
    planAgent: (storyId, promptPath, presetId) => planAgent(ctx, storyId, promptPath, presetId),
    issuePlanFor: ctx.issuePlanFor ? (storyId) => (ctx.issuePlanFor as NonNullable<PrepareContext['issuePlanFor']>)(folder, storyId) : undefined,
    unsaved: (relative) => hasUnsavedChanges(joinRelative(folder.uri, relative)),
    archived: (branch, last, target) => showArchived(branch, last, target),
  };
}
