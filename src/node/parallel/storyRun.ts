/**
 * One agent run of a parallel loop, in the story's own worktree: the prompt written under the
 * worktree's `.ralph/prompts/`, the agent started through the executor (a child process for the
 * CLI, a terminal in VS Code), its output streamed to `.ralph/logs/<run>.log` of the main folder,
 * a per-run time limit, and, when it ends, what git and the worktree's prd.json show turned into
 * the loop's outcome. An agent that left its branch, rewrote the history below its work or
 * dirtied nothing but failed is told apart, each with a sentence that says what was kept where.
 */
import { existsSync, type WriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { agentQuestion, QUESTION_TAIL_CHARS } from '../../core/agents/question';
import type { IssuePlanInput } from '../../core/artifacts/promptSection';
import { buildPrompt, promptFileName } from '../../core/context/prompt';
import { errorMessage } from '../../core/errorMessage';
import { type Receipt, receiptFields, receiptReaderFor } from '../../core/insights/receipts';
import type { AgentExecutor, AgentExit, AgentHandle } from '../../core/loop/executor';
import type { AgentCommandPlan } from '../../core/loop/iteration';
import type { AgentOutcome } from '../../core/loop/parallelLoop';
import { detectLimit, type LimitVerdict, localTimeZone } from '../../core/insights/limits';
import { failureDetails } from '../../core/insights/signature';
import { planPrdMerge, storyPasses } from '../../core/parallel/prdMerge';
import { unionProgress } from '../../core/parallel/progressUnion';
import { analyzePrd } from '../../core/prd/index';
import { detectFeatCommit, type FeatCommit, fewPaths, type RunOutcome, type RunRecord } from '../../core/runs/runs';
import { applyEdits } from '../../core/textEdit';
import { readPromptInputs } from '../promptInputs';
import { openAgentLog, writePromptFile } from '../runFiles';
import { commitsNotOn, firstLine, git, showFile } from './git';
import { branchAndChanges, type StoryWorktree } from './worktrees';

/** The files of the workspace, relative to a tree's top (the main one or a worktree). */
export interface MemoryPaths {
  readonly prd: string;
  readonly progress: string;
  readonly pin: string;
  /** `ralph.prompt.templateFile` (blank: the built-in template). */
  readonly template?: string;
}

export interface AgentPlanRequest {
  readonly storyId: string;
  /** Absolute path of the prompt file. */
  readonly promptPath: string;
  /** The folder the agent runs in (its worktree). */
  readonly cwd: string;
  /** Run this preset instead of the configured agent (ralph.agent.fallback while that one is limited). */
  readonly presetId?: string;
}

export interface StoryRunContext {
  /** The main working tree (logs go under its `.ralph/logs/`). */
  readonly root: string;
  readonly files: MemoryPaths;
  readonly executor: AgentExecutor;
  planAgent(req: AgentPlanRequest): AgentCommandPlan | Promise<AgentCommandPlan>;
  issuePlanFor?(storyId: string): Promise<IssuePlanInput | undefined>;
  /** Past this, the agent is ended and the run counts as an error (0: no limit). */
  readonly timeoutMs: number;
  /** Writes the prompt file (default: node's writeFile; tests make it fail as a full disk would). */
  readonly writeFile?: (file: string, text: string) => Promise<void>;
  readonly now: () => Date;
}

export interface StoryRunRequest {
  readonly runId: string;
  readonly storyId: string;
  readonly storyTitle: string;
  readonly worktree: StoryWorktree;
  /** Said to the agent at the end of its prompt (e.g. the output of the check its last merge failed). */
  readonly extraPrompt?: string;
}

export interface StoryRunResult {
  readonly outcome: AgentOutcome;
  readonly message?: string;
  readonly exit?: AgentExit;
  readonly started: Date;
  readonly ended: Date;
  /** Workspace-relative to the worktree. */
  readonly promptFile?: string;
  readonly logFile: string;
  readonly agent: string;
  readonly commit: FeatCommit | null;
  readonly storyPasses: boolean;
  readonly completeSignal: boolean;
  /** Files the branch changed since its base (the same-file guard learns them). */
  readonly filesChanged: readonly string[];
  readonly uncommitted: readonly string[];
  /** A rate-limited run: what the agent printed of its limit (the runner waits it out). */
  readonly limit?: LimitVerdict;
  /** A failed run: its failure signature (core/insights/signature.ts). */
  readonly signature?: string;
  /** …and its last error lines as printed. */
  readonly errorLines?: readonly string[];
  /** What the agent's output said it cost (absent when the agent did not run). */
  readonly receipt?: Receipt;
}

const COMPLETE = '<promise>COMPLETE</promise>';

/** A started run: `handle` while the agent runs (Stop This Agent), `result` when it is over. */
export class StoryRun {
  handle: AgentHandle | undefined;
  readonly result: Promise<StoryRunResult>;
  private stopRequested = false;

  constructor(
    private readonly ctx: StoryRunContext,
    private readonly req: StoryRunRequest,
  ) {
    this.result = this.go();
  }

  /** Ends the agent (or keeps it from starting). */
  async stop(): Promise<void> {
    this.stopRequested = true;
    await this.handle?.stop();
  }

  private async go(): Promise<StoryRunResult> {
    const { ctx, req } = this;
    const started = ctx.now();
    const logRel = `.ralph/logs/${req.runId}.log`;
    const base = { started, logFile: logRel, agent: '', commit: null, storyPasses: false, completeSignal: false, filesChanged: [], uncommitted: [] };
    const fail = (message: string): StoryRunResult => ({ ...base, outcome: 'error', message, ended: ctx.now() });
    let promptFile: string;
    let plan: AgentCommandPlan;
    try {
      promptFile = await this.writePrompt(started);
      plan = await ctx.planAgent({ storyId: req.storyId, promptPath: path.join(req.worktree.folder, promptFile), cwd: req.worktree.folder });
    } catch (e) {
      return fail(errorMessage(e));
    }
    if (!plan.ok) {
      return fail(plan.message);
    }
    if (this.stopRequested) {
      return { ...base, outcome: 'stopped', promptFile, agent: plan.agent, ended: ctx.now() };
    }
    let log: WriteStream | undefined;
    try {
      log = await openAgentLog(ctx.root, logRel);
    } catch (e) {
      return fail(`the log ${logRel} could not be opened (${errorMessage(e)}).`);
    }
    log.write(`# ${req.storyId} — ${req.storyTitle}\n# worktree ${req.worktree.folder} (branch ${req.worktree.branch})\n# started ${started.toISOString()}\n`);
    let tail = '';
    let completeSignal = false;
    const receipt = receiptReaderFor(plan.agent);
    let handle: AgentHandle;
    try {
      handle = ctx.executor.start({
        name: `Ralph: ${req.storyId} — ${req.storyTitle}`.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 80),
        cwd: req.worktree.folder,
        commandLine: plan.commandLine,
        env: plan.env,
        onOutput: (chunk) => {
          log?.write(chunk);
          receipt.push(chunk);
          // The signal may be split across chunks: keep enough of the last one to see it, and the
          // agent's last words (a question to the user).
          tail = (tail + chunk).slice(-QUESTION_TAIL_CHARS);
          completeSignal ||= tail.slice(-4096).includes(COMPLETE);
        },
      });
    } catch (e) {
      const message = `its agent could not start (${errorMessage(e)}).`;
      log.write(`\n# ${message}\n`);
      await new Promise<void>((resolve) => log.end(resolve));
      return { ...fail(message), promptFile, agent: plan.agent };
    }
    this.handle = handle;
    if (this.stopRequested) {
      // Asked to stop while the log was being opened (no handle to stop yet then).
      void handle.stop();
    }
    let timedOut = false;
    const timer =
      ctx.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            void handle.stop();
          }, ctx.timeoutMs)
        : undefined;
    const exit = await handle.exit;
    clearTimeout(timer);
    handle.dispose();
    const ended = ctx.now();
    log.write(`\n# ended ${ended.toISOString()}: ${exit.stopped ? (timedOut ? 'ended at the time limit' : 'stopped') : `exit ${exit.exitCode ?? 'unknown'}`}\n`);
    await new Promise<void>((resolve) => log.end(resolve));
    const seen = await observe(ctx, req, exit, timedOut, tail, ended).catch((e: unknown) => ({ outcome: 'error' as const, message: `what the agent left could not be read (${errorMessage(e)}).`, commit: null, storyPasses: false, filesChanged: [], uncommitted: [] }));
    return { ...base, ...seen, exit, ended, promptFile, agent: plan.agent, completeSignal, receipt: receipt.end() };
  }

  /** The story's prompt, built from the worktree's own memory files, under its `.ralph/prompts/`. */
  private async writePrompt(now: Date): Promise<string> {
    const { ctx, req } = this;
    const folder = req.worktree.folder;
    const prdText = await readFile(path.join(folder, ctx.files.prd), 'utf8').catch((e: NodeJS.ErrnoException) => {
      throw new Error(`its worktree has no readable ${ctx.files.prd} (${e.code ?? e.message}).`);
    });
    const inputs = readPromptInputs(folder, { progress: ctx.files.progress, pin: ctx.files.pin, template: ctx.files.template || undefined });
    const issuePlan = await ctx.issuePlanFor?.(req.storyId).catch(() => undefined);
    let text = buildPrompt({
      prd: analyzePrd(prdText),
      storyId: req.storyId,
      progressText: inputs.progressText,
      pinText: inputs.pinText,
      template: inputs.template,
      issuePlan,
      readFile: inputs.readSpec,
      files: ctx.files,
    });
    if (req.extraPrompt) {
      text += `\n\n${req.extraPrompt}\n`;
    }
    const name = promptFileName(now, req.storyId);
    await writePromptFile(path.join(folder, '.ralph', 'prompts', name), text, 'Retry', ctx.writeFile);
    return `.ralph/prompts/${name}`;
  }
}

/** Where a run line stands in its loop. */
export interface RunLinePlace {
  readonly storyId: string;
  readonly storyTitle: string;
  readonly iteration: number;
  readonly loopId: string;
  readonly wave: number;
  /** Stories passing as the run started. */
  readonly passing: number;
}

/** A finished agent run as its runs.jsonl line (the merge's outcome is added when it is known). */
export function runLine(r: StoryRunResult, at: RunLinePlace, wt: StoryWorktree): RunRecord {
  const same: readonly AgentOutcome[] = ['passed', 'failed', 'stopped', 'rate-limited'];
  const outcome: RunOutcome = same.includes(r.outcome) ? (r.outcome as RunOutcome) : r.outcome === 'no-progress' || r.outcome === 'question' ? (r.completeSignal ? 'false-complete' : 'no-progress') : 'error';
  return {
    start: r.started.toISOString(),
    end: r.ended.toISOString(),
    storyId: at.storyId,
    storyTitle: at.storyTitle,
    agent: r.agent,
    exitCode: r.exit?.exitCode ?? null,
    durationMs: r.ended.getTime() - r.started.getTime(),
    passingBefore: at.passing,
    passingAfter: at.passing + (r.outcome === 'passed' ? 1 : 0),
    storyPasses: r.storyPasses,
    commit: r.commit,
    complete: r.completeSignal,
    outcome,
    promptFile: r.promptFile ?? '',
    iteration: at.iteration,
    loopId: at.loopId,
    ...receiptFields(r.receipt),
    ...(r.limit?.resetAt ? { resetAt: r.limit.resetAt.toISOString() } : {}),
    ...(r.signature ? { signature: r.signature } : {}),
    ...(r.errorLines ? { errorLines: r.errorLines } : {}),
    ...(r.uncommitted.length > 0 ? { uncommitted: r.uncommitted } : {}),
    parallel: { wave: at.wave, worktree: wt.folder, branch: wt.branch },
  };
}

type Observed = Pick<StoryRunResult, 'outcome' | 'message' | 'commit' | 'storyPasses' | 'filesChanged' | 'uncommitted' | 'limit' | 'signature' | 'errorLines'>;

/** What the agent left in its worktree, as the loop's outcome. */
async function observe(ctx: StoryRunContext, req: StoryRunRequest, exit: AgentExit, timedOut: boolean, outputTail: string, ended: Date): Promise<Observed> {
  const { worktree: wt, storyId } = req;
  const none = { commit: null, storyPasses: false, filesChanged: [], uncommitted: [] };
  // Every look at once (they only read; the next story waits on this one's merge): where HEAD is,
  // whether the start is below it, the commits, prd.json, the files changed, what is uncommitted.
  const [{ branch: onBranch, paths: dirty }, ancestor, commits, prd, diff] = await Promise.all([
    // The branch and what is uncommitted in one git process (each costs the runner's event loop several ms).
    branchAndChanges(wt.folder).catch(() => ({ branch: undefined, paths: [] as string[] })),
    git(wt.folder, ['merge-base', '--is-ancestor', wt.base, 'HEAD']),
    commitsNotOn(wt.folder, 'HEAD', wt.base).catch(() => [] as { sha: string; subject: string }[]),
    readFile(path.join(wt.folder, ctx.files.prd), 'utf8').catch(() => undefined),
    git(wt.folder, ['diff', '--name-only', '-z', wt.base, 'HEAD']),
  ]);
  // An agent that checked out another branch took its work with it.
  if (onBranch !== wt.branch) {
    const where = onBranch ? `the branch ${onBranch}` : 'a detached HEAD';
    return { ...none, outcome: 'error', message: `its agent left the worktree on ${where} instead of ${wt.branch}; nothing was merged. Its commits are kept there: check out ${wt.branch} in ${wt.folder} (or move the commits onto it), then Retry.` };
  }
  if (ancestor.code !== 0) {
    return { ...none, outcome: 'error', message: `its agent rewrote history below its own work (${wt.branch} no longer contains ${wt.base.slice(0, 8)}, where it started); nothing was merged. The branch is kept as it is, for you to look at (git reflog in ${wt.folder} shows what it was).` };
  }
  const commit = detectFeatCommit(commits, storyId);
  const passes = prd !== undefined && storyPasses(prd, storyId);
  const filesChanged = diff.code === 0 ? diff.stdout.split('\0').filter((p) => p !== '') : [];
  const seen = { commit, storyPasses: passes, filesChanged, uncommitted: dirty };
  if (timedOut) {
    return { ...seen, outcome: 'error', message: `its agent ran past the time limit (${Math.round(ctx.timeoutMs / 60_000)} min) and was ended; its worktree ${wt.folder} keeps what it did.` };
  }
  if (exit.stopped) {
    return { ...seen, outcome: 'stopped' };
  }
  if (passes && commit) {
    return { ...seen, outcome: 'passed' };
  }
  const limit = detectLimit({ exitCode: exit.exitCode ?? null, stopped: exit.stopped, output: outputTail, end: ended, timeZone: localTimeZone() });
  if (limit) {
    return { ...seen, outcome: 'rate-limited', message: limit.message, limit };
  }
  if (exit.exitCode !== undefined && exit.exitCode !== 0) {
    const failure = failureDetails(outputTail);
    return { ...seen, outcome: 'failed', message: `its agent exited with code ${exit.exitCode}`, ...(failure ? { signature: failure.signature, errorLines: failure.errorLines } : {}) };
  }
  // Nothing done and the agent's last words ask the user: an answer, not another attempt, moves it on.
  const question = !passes && !commit ? agentQuestion(outputTail) : undefined;
  if (question !== undefined) {
    return { ...seen, outcome: 'question', message: question };
  }
  const why = passes ? `it passes in ${ctx.files.prd} but no "feat: ${storyId} - …" commit was made` : commit ? `it was committed but does not pass in ${ctx.files.prd}` : 'the story does not pass yet';
  return { ...seen, outcome: 'no-progress', message: `${why}${dirty.length > 0 ? `; uncommitted: ${fewPaths(dirty)}` : ''}` };
}

/**
 * THE rule of a finished story (a retry, resume, a reopened window): its worktree is on its branch,
 * which has the story's `feat: <id> - …` commit since the base it started from, and the story passes
 * in the worktree's prd.json. A worktree whose folder is gone is read from its branch in `root`.
 */
export async function finishedInWorktree(wt: StoryWorktree, prdRel: string, root?: string): Promise<boolean> {
  const present = existsSync(wt.folder);
  if (present) {
    const head = await git(wt.folder, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
    if (head.code !== 0 || head.stdout.trim() !== wt.branch) {
      return false; // its agent left the branch: the work is not where a merge takes it from
    }
  } else if (!root) {
    return false;
  }
  const [at, tip] = present ? [wt.folder, 'HEAD'] : [root as string, `refs/heads/${wt.branch}`];
  const commits = await commitsNotOn(at, tip, wt.base).catch(() => []);
  const prd = present ? await readFile(path.join(wt.folder, prdRel), 'utf8').catch(() => undefined) : await showFile(at, tip, prdRel);
  return detectFeatCommit(commits, wt.storyId) !== null && prd !== undefined && storyPasses(prd, wt.storyId);
}

export interface FeatureUpdate {
  /** Files left conflicting in the worktree for the user (never prd.json or progress.txt); [] when it merged. */
  readonly files: readonly string[];
  /** The worktree with its new base: the feature branch's head it now holds (where its next merge compares prd.json from). */
  readonly worktree: StoryWorktree;
}

/**
 * Brings a kept story branch up to the feature branch (before a retry after a conflict), so the
 * conflict shows in the worktree where it can be resolved. prd.json and progress.txt are never
 * text-merged (as in the queue): they become the feature branch's, with this story's `passes` and
 * its new progress entries. Returns the files left conflicting (a conflicted merge is left in the
 * worktree for the user, the memory files settled), or [] when it merged.
 */
export async function updateFromFeature(wt: StoryWorktree, featureBranch: string, rels: Pick<MemoryPaths, 'prd' | 'progress'>): Promise<FeatureUpdate> {
  const head = (await git(wt.folder, ['rev-parse', '--verify', `refs/heads/${featureBranch}^{commit}`])).stdout.trim();
  const r = await git(wt.folder, ['merge', '--no-commit', '--no-ff', `refs/heads/${featureBranch}`]);
  const merging = (await git(wt.folder, ['rev-parse', '--verify', '--quiet', 'MERGE_HEAD'])).code === 0;
  if (!merging) {
    if (r.code !== 0) {
      throw new Error(`git could not merge ${featureBranch} into ${wt.branch}: ${firstLine(r.stderr || r.stdout)}`);
    }
    return { files: [], worktree: { ...wt, base: head || wt.base } }; // up to date already
  }
  await settleMemory(wt, head, rels);
  const u = await git(wt.folder, ['diff', '--name-only', '--diff-filter=U', '-z']);
  const files = u.stdout.split('\0').filter((p) => p !== '');
  const moved = { ...wt, base: head };
  if (files.length > 0) {
    return { files, worktree: moved };
  }
  const c = await git(wt.folder, ['commit', '--no-edit', '-m', `Merge ${featureBranch} into ${wt.branch}`]);
  if (c.code !== 0) {
    throw new Error(`git could not commit the merge of ${featureBranch} into ${wt.branch}: ${firstLine(c.stderr || c.stdout)}`);
  }
  return { files: [], worktree: moved };
}

/** In a merge of the feature branch under way in the worktree: prd.json and progress.txt as the queue's rules make them, staged. */
async function settleMemory(wt: StoryWorktree, featureHead: string, rels: Pick<MemoryPaths, 'prd' | 'progress'>): Promise<void> {
  const at = async (rev: string, rel: string): Promise<string | undefined> => {
    const r = await git(wt.folder, ['show', `${rev}:${rel}`]);
    return r.code === 0 ? r.stdout : undefined;
  };
  // Where the two sides parted (the last feature head the worktree took in): what is new on each side is counted from there.
  const base = (await git(wt.folder, ['merge-base', 'HEAD', featureHead])).stdout.trim() || wt.base;
  const [featurePrd, basePrd, ownPrd, featureProgress, baseProgress, ownProgress] = await Promise.all([
    at(featureHead, rels.prd),
    at(base, rels.prd),
    at('HEAD', rels.prd),
    at(featureHead, rels.progress),
    at(base, rels.progress),
    at('HEAD', rels.progress),
  ]);
  const plan = featurePrd !== undefined && ownPrd !== undefined ? planPrdMerge(featurePrd, basePrd, ownPrd, wt.storyId) : undefined;
  const prd = featurePrd === undefined ? ownPrd : plan?.ok ? applyEdits(featurePrd, plan.edits) : featurePrd;
  const progress = featureProgress === undefined || ownProgress === undefined ? (featureProgress ?? ownProgress) : unionProgress(featureProgress, baseProgress, ownProgress).text;
  for (const [rel, text] of [
    [rels.prd, prd],
    [rels.progress, progress],
  ] as const) {
    if (text !== undefined) {
      await writeFile(path.join(wt.folder, rel), text);
      await git(wt.folder, ['add', '--', rel]);
    }
  }
}
