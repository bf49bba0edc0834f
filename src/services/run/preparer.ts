/**
 * The workspace preparer: what must be true of a folder before an agent runs there. Before a run,
 * the dirty-working-tree question; before each iteration, the PRD's branch (archiving the previous
 * feature when it changed), `.ralph/` ignoring itself, auto-compaction, the prompt file and the
 * agent command. (A wave of parallel stories will prepare a git worktree here instead.)
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { shellKindOf, type ShellKind } from '../../core/agents/presets';
import type { IssuePlanInput } from '../../core/artifacts/promptSection';
import { buildPrompt, promptFileName } from '../../core/context/prompt';
import { errorMessage } from '../../core/errorMessage';
import { type AgentCommandPlan, planAgentCommand } from '../../core/loop/iteration';
import type { RunStep, StopStep } from '../../core/loop/loop';
import type { PrdAnalysis } from '../../core/prd/index';
import { planCompaction } from '../../core/progress/compact';
import { decodeText } from '../../core/progress/parse';
import { freshProgressText, LAST_BRANCH_FILE } from '../../core/runs/archive';
import { fewPaths } from '../../core/runs/runs';
import { applyCompaction, CompactionError } from '../../node/compaction';
import { reconcileCompaction } from '../../node/compactionReconcile';
import { terminalLookup } from '../../node/programLookup';
import { PromptInputError, readPromptInputs } from '../../node/promptInputs';
import { hasUnsavedChanges } from '../../util/documents';
import { GitRepo } from '../git';
import { archiveIfBranchChanged, readInsideText, writablePath, writeInside } from '../../node/runFiles';
import { type DirtyTreeAnswer, openSourceControl, showArchived, showStashed } from '../runMessages';
import { type RalphSettings, readTerminalEnv } from '../settings';
import { joinRelative, readBytes } from '../workspaceFiles';
import { ralphScripts } from '../../node/ralphScripts';
import type { PreparedIteration } from './engine';
import { LAST_PRD_FILE } from '../../node/runRecorder';

/**
 * A readable error for the user; the loop stops with it and nothing is recorded as a crash. With a
 * `setting`, the error offers "Open Setting" at that key; with a `link`, the agent's install guide.
 */
export class RunError extends Error {
  constructor(
    message: string,
    readonly help: { readonly setting?: string; readonly link?: string } = {},
  ) {
    super(message);
  }
}

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

/** Makes the folder ready for the step's story and plans the agent command. */
export async function prepareIteration(ctx: PrepareContext, step: RunStep, before: PrdAnalysis, allowDirtyCheckout: boolean): Promise<PreparedIteration> {
  const { folder, settings, log } = ctx;
  const root = folder.uri.fsPath;
  const branch = before.doc.branchName;
  // The agent command first: a command that cannot run must fail before the folder is changed.
  const promptsDir = joinRelative(folder.uri, '.ralph/prompts');
  const taken = new Set(await vscode.workspace.fs.readDirectory(promptsDir).then((e) => e.map(([n]) => n), () => [] as string[]));
  const promptFile = `.ralph/prompts/${promptFileName(new Date(), step.storyId, (n) => taken.has(n))}`;
  const plan = await planAgent(ctx, step.storyId, path.join(root, promptFile));
  if (!plan.ok) {
    throw new RunError(plan.message, { setting: plan.setting });
  }
  const git = await GitRepo.open(root);
  if (!git) {
    log.info(`[runner] ${folder.name} is not a git repository (or git is missing): branch and commit steps are skipped.`);
  }
  // The previous feature's files are copied before the checkout (which may replace them), and
  // progress.txt restarts after it: rewriting a tracked file first would make the tree dirty and
  // the checkout refuse.
  const archived = await archiveIfBranchChanged(root, { lastBranch: LAST_BRANCH_FILE, lastPrd: LAST_PRD_FILE, prd: settings.prdPath, progress: settings.progressPath }, branch);
  if (git && branch && settings.manageBranch) {
    const result = await git.ensureBranch(branch, { allowDirty: allowDirtyCheckout }).catch(async (e: Error) => {
      await archived?.undo(); // nothing changed: the next attempt archives again
      throw new RunError(e.message);
    });
    if (result.action !== 'already-on-branch') {
      log.info(`[runner] git: ${result.action === 'created' ? `created ${branch} from ${result.from ?? 'HEAD'}` : `checked out ${branch}`}`);
    }
  }
  if (archived) {
    await writeInside(root, settings.progressPath, freshProgressText(new Date()), 'ralph.progressPath');
    log.info(`[runner] branch changed from ${archived.last} to ${branch}: archived the previous run to ${archived.target}/ and started a fresh ${settings.progressPath}`);
    showArchived(branch, archived.last, archived.target);
  }
  if (branch) {
    await writeInside(root, LAST_BRANCH_FILE, `${branch}\n`);
  }

  // .ralph/ is the extension's runtime state: it ignores itself, so it never dirties the tree or lands in a commit.
  if ((await readInsideText(root, '.ralph/.gitignore')) === undefined) {
    await writeInside(root, '.ralph/.gitignore', '# Ralph Workbench runtime state (prompts, runs, logs): not for git\n*\n');
  }
  // After a branch change the late lines belong to the previous feature, archived above.
  await carryLateLines(ctx, archived ? path.join(root, archived.target, 'progress.txt') : undefined);
  await autoCompact(ctx);
  const promptText = await storyPrompt(ctx, before, step.storyId);
  await writeInside(root, promptFile, promptText);
  for (const w of plan.warnings) {
    log.warn(`[runner] ${w}`);
  }
  const headBefore = git ? await git.head() : undefined;
  return {
    promptFile,
    agent: plan.agent,
    launch: {
      name: `Ralph: ${step.storyId} — ${step.storyTitle}`.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 80),
      cwd: root,
      commandLine: plan.commandLine,
      env: plan.env,
    },
    observe: async () =>
      git ? { commits: await git.commitsSince(headBefore), uncommitted: await git.uncommittedFiles().catch(() => undefined) } : {},
  };
}

/**
 * The agent command for a story, from the settings, with its program looked up the way the
 * agent's terminal will find it (its PATH: the host's, changed by terminal.integrated.env.*).
 */
export async function planAgent(ctx: PrepareContext, storyId: string, promptPath: string): Promise<AgentCommandPlan> {
  const { folder, settings } = ctx;
  const shell: ShellKind = shellKindOf(vscode.env.shell || '') ?? (process.platform === 'win32' ? 'powershell' : 'posix');
  const scripts = ralphScripts(folder.uri.fsPath);
  return planAgentCommand({
    presetId: settings.agentPreset,
    command: settings.agentCommand,
    shell,
    exists: (p) => scripts.has(p),
    vars: { promptFile: promptPath, storyId, workspaceFolder: folder.uri.fsPath },
    lookup: terminalLookup(readTerminalEnv(folder.uri)),
  });
}

/** The prompt of a story, from the one prompt-inputs reader (every path inside the folder, reads bounded). */
export async function storyPrompt(ctx: PrepareContext, analysis: PrdAnalysis, storyId: string): Promise<string> {
  const { folder, settings } = ctx;
  const inputs = promptInputsOf(ctx);
  for (const note of inputs.notes) {
    ctx.log.warn(`[runner] ${note}`);
  }
  const issuePlan = await ctx.issuePlanFor?.(folder, storyId).catch(() => undefined);
  return buildPrompt({
    prd: analysis,
    storyId,
    progressText: inputs.progressText,
    pinText: inputs.pinText,
    template: inputs.template,
    issuePlan,
    readFile: inputs.readSpec,
    files: { prd: settings.prdPath, progress: settings.progressPath, pin: settings.pinPath },
  });
}

/** progress.txt, the Pin and the prompt template as the prompt reads them; a RunError names the setting that leads astray. */
export function promptInputsOf({ folder, settings }: PrepareContext): ReturnType<typeof readPromptInputs> {
  try {
    return readPromptInputs(
      folder.uri.fsPath,
      { progress: settings.progressPath, pin: settings.pinPath, template: settings.promptTemplateFile || undefined },
      { progress: 'ralph.progressPath', pin: 'ralph.pinPath', template: 'setting ralph.prompt.templateFile' },
    );
  } catch (e) {
    throw e instanceof PromptInputError ? new RunError(e.message) : e;
  }
}

/**
 * Carries into progress.txt the lines an agent stalled past the last compaction wrote to the file
 * it replaced (kept as the saved original): the iteration's prompt reads them. Never stops the run.
 */
async function carryLateLines({ folder, settings, log }: PrepareContext, into: string | undefined): Promise<void> {
  if (hasUnsavedChanges(joinRelative(folder.uri, settings.progressPath))) {
    return; // appending under an editor's unsaved text would make its save conflict: next time
  }
  try {
    const file = await writablePath(folder.uri.fsPath, settings.progressPath, 'ralph.progressPath');
    const r = await reconcileCompaction(file, new Date(), { displayName: settings.progressPath, into });
    if (r.logLine) {
      log.info(`[runner] ${r.logLine}`);
    }
    if (r.warning) {
      log.warn(`[runner] ${r.warning}`);
    }
  } catch (e) {
    log.warn(`[runner] the lines written after the last compaction were not carried into ${settings.progressPath}: ${errorMessage(e)}`);
  }
}

/** With ralph.progress.autoCompact, compacts progress.txt before an iteration when it is over the threshold. */
async function autoCompact({ folder, settings, log }: PrepareContext): Promise<void> {
  const uri = joinRelative(folder.uri, settings.progressPath);
  if (!settings.autoCompact) {
    return;
  }
  const file = await writablePath(folder.uri.fsPath, settings.progressPath, 'ralph.progressPath');
  const bytes = await readBytes(vscode.Uri.file(file));
  if (!bytes || hasUnsavedChanges(uri)) {
    return;
  }
  const plan = planCompaction(decodeText(bytes), {
    threshold: settings.compactThreshold,
    keepRecentLines: settings.keepRecentLines,
    now: new Date(),
  });
  if (plan.changed) {
    try {
      const done = await applyCompaction(file, bytes, plan, new Date(), settings.progressPath);
      log.info(`[runner] auto-compaction: ${done.logLine}`);
    } catch (e) {
      // Compaction refuses (and changes nothing) when another process holds progress.txt open for
      // writing: the iteration still runs, on the uncompacted file.
      if (!(e instanceof CompactionError)) {
        throw e;
      }
      log.warn(`[runner] auto-compaction skipped: ${e.message}`);
    }
  }
}
