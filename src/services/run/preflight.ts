/**
 * The preflight of a run in the extension: gathers what can make the run fail — trust, the story,
 * the agent command with its program looked up on the terminal's PATH, the files the run writes,
 * git's state — and asks src/core/loop/preflight.ts for the problems, before anything is changed.
 * When the only problem is that the configured preset's program is not installed, the agent
 * chooser offers the presets found on PATH (agentChooser.ts) and the check runs again with the
 * choice. Last, the dirty-working-tree question. Run Next, Run Story and Start Loop all start here
 * (the run engine calls it before the first iteration).
 */
import { PRESET_SETTING } from '../../core/agents/presets';
import type { RunStep, StopStep } from '../../core/loop/loop';
import type { PreflightProblem } from '../../core/loop/preflight';
import type { PrdAnalysis } from '../../core/prd/index';
import { folderPreflight } from '../../node/preparer';
import { askDirtyTree } from '../runMessages';
import { readSettings } from '../settings';
import { isTrusted } from '../trust';
import { chooseAgent } from './agentChooser';
import { checkWorkingTree, folderContext, type PrepareContext, RunError } from './preparer';

export interface PreflightOutcome {
  /** The run ends before it began (the user cancelled the chooser or the dirty-tree question). */
  readonly stop?: StopStep;
  /** The user chose to run on a dirty working tree. */
  readonly runAnyway: boolean;
  /** The context to run with (new settings when the chooser wrote the agent preset). */
  readonly ctx: PrepareContext;
}

/** Checks everything a run needs; throws a RunError naming every problem, or returns how to go on. */
export async function preflight(ctx: PrepareContext, step: RunStep, before: PrdAnalysis, requestedStory: string | undefined): Promise<PreflightOutcome> {
  let problems = await problemsOf(ctx, step, before, requestedStory);
  if (problems.length === 1 && problems[0].kind === 'agent-missing' && problems[0].setting === PRESET_SETTING) {
    if (!(await chooseAgent(ctx))) {
      return { stop: cancelled('Not started: no agent was chosen.'), runAnyway: false, ctx };
    }
    ctx = { ...ctx, settings: readSettings(ctx.folder.uri) };
    problems = await problemsOf(ctx, step, before, requestedStory);
  }
  if (problems.length > 0) {
    for (const p of problems) {
      ctx.log.warn(`[runner] preflight: ${p.kind}: ${p.message}`);
    }
    throw new RunError(problems.map((p) => p.message).join(' '), { setting: problems.find((p) => p.setting)?.setting });
  }
  const tree = await checkWorkingTree(ctx.folder, askDirtyTree, ctx.log);
  return { ...tree, ctx };
}

function problemsOf(ctx: PrepareContext, step: RunStep, before: PrdAnalysis, requestedStory: string | undefined): Promise<PreflightProblem[]> {
  const { folder } = ctx;
  return folderPreflight(folderContext(ctx), { trusted: isTrusted(), scheme: folder.uri.scheme, folderName: folder.name, step, before, requestedStory });
}

function cancelled(message: string): StopStep {
  return { kind: 'stop', reason: 'cancelled', message, details: [] };
}
