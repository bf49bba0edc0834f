/**
 * The workspace preparer of the serial loop, without VS Code: what must be true of a folder before
 * an agent runs there. Before each iteration: the agent command planned (first, before any write),
 * the PRD's branch (archiving the previous feature when it changed), `.ralph/` ignoring itself, the
 * late progress lines carried over, auto-compaction, the prompt file. The extension's preparer
 * (src/services/run/preparer.ts) and the CLI's `run --parallel 1` (src/cli/serialRun.ts) both
 * prepare through here; what only an editor knows (unsaved text, a notification) is a hook.
 */
import { readdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { IssuePlanInput } from '../core/artifacts/promptSection';
import { buildPrompt, promptFileName } from '../core/context/prompt';
import { errorMessage } from '../core/errorMessage';
import type { PreparedIteration } from '../core/loop/engine';
import type { AgentCommandPlan } from '../core/loop/iteration';
import type { RunStep } from '../core/loop/loop';
import { preflightProblems, type PreflightInput, type PreflightProblem } from '../core/loop/preflight';
import type { PrdAnalysis } from '../core/prd/index';
import { planCompaction } from '../core/progress/compact';
import { decodeText } from '../core/progress/parse';
import { freshProgressText, LAST_BRANCH_FILE } from '../core/runs/archive';
import type { SettingValues } from '../core/settingKeys';
import { applyCompaction, CompactionError } from './compaction';
import { reconcileCompaction } from './compactionReconcile';
import { GitRepo } from './gitRepo';
import { PromptInputError, readPromptInputs } from './promptInputs';
import { archiveIfBranchChanged, readInsideText, unwritableReason, writablePath, writeInside, writePromptFile } from './runFiles';
import { LAST_PRD_FILE } from './runRecorder';

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

/** The settings an iteration's preparation reads. */
export type PrepareSettings = Pick<
  SettingValues,
  'prdPath' | 'progressPath' | 'pinPath' | 'promptTemplateFile' | 'manageBranch' | 'autoCompact' | 'compactThreshold' | 'keepRecentLines'
>;

export interface FolderPrepContext {
  /** The workspace folder on disk. */
  readonly root: string;
  readonly settings: PrepareSettings;
  readonly log: { info(line: string): void; warn(line: string): void };
  /** The agent command for a story and its prompt file (absolute). */
  /** `presetId`: run this preset instead of the configured agent (ralph.agent.fallback while it is limited). */
  planAgent(storyId: string, promptPath: string, presetId?: string): AgentCommandPlan | Promise<AgentCommandPlan>;
  /** The story's GitHub issue plan for the prompt, if any. */
  issuePlanFor?(storyId: string): Promise<IssuePlanInput | undefined>;
  /** Whether an editor holds unsaved text of this workspace-relative file (headless: never). */
  unsaved?(relative: string): boolean;
  /** The previous feature was archived (the extension says so in a notification). */
  archived?(branch: string, last: string, target: string): void;
  /** Writes the prompt file (default: node's writeFile; tests make it fail as a full disk would). */
  writeFile?(file: string, text: string): Promise<void>;
}

/** Makes the folder ready for the step's story and plans the agent command. */
export async function prepareIteration(ctx: FolderPrepContext, step: RunStep, before: PrdAnalysis, allowDirtyCheckout: boolean, presetId?: string): Promise<PreparedIteration> {
  const { root, settings, log } = ctx;
  const branch = before.doc.branchName;
  // The agent command first: a command that cannot run must fail before the folder is changed.
  const taken = new Set(await readdir(path.join(root, '.ralph', 'prompts')).catch(() => [] as string[]));
  const promptFile = `.ralph/prompts/${promptFileName(new Date(), step.storyId, (n) => taken.has(n))}`;
  const plan = await ctx.planAgent(step.storyId, path.join(root, promptFile), presetId);
  if (!plan.ok) {
    throw new RunError(plan.message, { setting: plan.setting });
  }
  const git = await GitRepo.open(root);
  if (!git) {
    log.info(`[runner] ${path.basename(root)} is not a git repository (or git is missing): branch and commit steps are skipped.`);
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
    ctx.archived?.(branch ?? '', archived.last, archived.target);
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
  await writePromptFile(await writablePath(root, promptFile), promptText, 'run again', ctx.writeFile).catch((e: Error) => {
    throw new RunError(`${step.storyId}: ${e.message}`);
  });
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
 * Everything that would make the run fail after it changed something (core/loop/preflight.ts), from
 * the folder's facts: the agent command, git's state, whether the run's files may be written and
 * its prompt inputs read. Empty: the run may start.
 */
export async function folderPreflight(
  ctx: FolderPrepContext,
  input: Pick<PreflightInput, 'trusted' | 'scheme' | 'folderName' | 'step' | 'requestedStory'> & { readonly before: PrdAnalysis },
): Promise<PreflightProblem[]> {
  const { root, settings } = ctx;
  const git = input.scheme === 'file' ? await GitRepo.open(root) : undefined;
  return preflightProblems({
    ...input,
    prdLabel: settings.prdPath,
    prd: input.before,
    agent: await ctx.planAgent(input.step.storyId, path.join(root, '.ralph', 'prompts', 'preflight.md')),
    git: git ? { branch: (await git.isDetached()) ? undefined : ((await git.currentBranch()) ?? '(no commit yet)'), operation: await git.operation() } : undefined,
    manageBranch: settings.manageBranch,
    filesProblem: await filesProblem(ctx),
  });
}

/** Why the run could not write its state or read its prompt inputs, if so. */
async function filesProblem(ctx: FolderPrepContext): Promise<string | undefined> {
  const unwritable = await unwritableReason(ctx.root, ['.ralph/runs.jsonl', '.ralph/prompts/preflight.md', ctx.settings.progressPath]);
  if (unwritable) {
    return unwritable;
  }
  try {
    promptInputsOf(ctx);
    return undefined;
  } catch (e) {
    if (e instanceof RunError) {
      return e.message;
    }
    throw e;
  }
}

/** The prompt of a story, from the one prompt-inputs reader (every path inside the folder, reads bounded). */
export async function storyPrompt(ctx: FolderPrepContext, analysis: PrdAnalysis, storyId: string): Promise<string> {
  const { settings } = ctx;
  const inputs = promptInputsOf(ctx);
  for (const note of inputs.notes) {
    ctx.log.warn(`[runner] ${note}`);
  }
  const issuePlan = await ctx.issuePlanFor?.(storyId).catch(() => undefined);
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
export function promptInputsOf({ root, settings }: Pick<FolderPrepContext, 'root' | 'settings'>): ReturnType<typeof readPromptInputs> {
  try {
    return readPromptInputs(
      root,
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
async function carryLateLines(ctx: FolderPrepContext, into: string | undefined): Promise<void> {
  const { root, settings, log } = ctx;
  if (ctx.unsaved?.(settings.progressPath)) {
    return; // appending under an editor's unsaved text would make its save conflict: next time
  }
  try {
    const file = await writablePath(root, settings.progressPath, 'ralph.progressPath');
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
async function autoCompact(ctx: FolderPrepContext): Promise<void> {
  const { root, settings, log } = ctx;
  if (!settings.autoCompact) {
    return;
  }
  const file = await writablePath(root, settings.progressPath, 'ralph.progressPath');
  const bytes = await readFile(file).catch(() => undefined);
  if (!bytes || ctx.unsaved?.(settings.progressPath)) {
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
