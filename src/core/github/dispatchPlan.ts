/**
 * Which ready stories to dispatch to GitHub Actions now, and why each other ready story waits
 * (issue 20, "Dispatch Ready Stories"). Pure: the node side (src/node/github/dispatch.ts) reads the
 * runs and pull requests, the workflow's `advance` job feeds `gh`'s answers
 * (`ralph-workbench github next-dispatches`); both decide here.
 *
 * A story's run is in flight while a run of the workflow whose display title is `ralph: <id>`
 * (the workflow's run-name) is not completed; its work is unmerged while a pull request from its
 * branch `<feature>-<id>` is open. The decision itself is the parallel loop's (`planStarts`,
 * core/loop/parallelPlan.ts): the in-flight runs take the slots (max-parallel), and in-flight and
 * unmerged stories hold their predicted files for the same-file guard.
 */
import { issuesOfField } from '../artifacts/storyIssues';
import { NO_ATTEMPTS, planStarts } from '../loop/parallelPlan';
import { describeWait, type WaitReason } from '../loop/waitReasons';
import { storyBranchName } from '../parallel/names';
import type { Story } from '../prd/model';
import type { Readiness } from '../prd/readiness';
import { RUN_TITLE_PREFIX } from './workflow';

/** What the plan needs of a workflow run (the contract's WorkflowRun has more). */
export interface RunLike {
  readonly displayTitle: string;
  readonly status: string;
  readonly htmlUrl?: string;
  /** What started it (`event`): only a `workflow_dispatch` run is a story's run. Absent: not known (counted). */
  readonly event?: string;
}

/** What the plan needs of an open pull request. */
export interface PullLike {
  readonly headRef: string;
  readonly number?: number;
  readonly htmlUrl?: string;
  /** Its head is in another repository (a fork): never a story's pull request, whatever its branch is called. */
  readonly fromFork?: boolean;
}

/**
 * Whether a run counts as a story's run. The run's title is its run-name, which the workflow file
 * of the run's commit chooses: a fork's pull request runs the fork's copy of ralph.yml and may call
 * its run `ralph: US-001`. Only a dispatch (by someone with write access) runs a story.
 */
export function isStoryRun(run: { readonly event?: string }): boolean {
  return run.event === undefined || run.event === 'workflow_dispatch';
}

/** Whether a pull request can be a story's: its head branch is in this repository (anyone can name a fork's branch `<feature>-US-001`). */
export function isOwnPull(pull: { readonly fromFork?: boolean }): boolean {
  return pull.fromFork !== true;
}

export type DispatchWait =
  | WaitReason
  /** A run of the workflow for this story is queued or in progress. */
  | { readonly kind: 'in-flight'; readonly url?: string }
  /** Its pull request is open: its work is not on the feature branch yet. */
  | { readonly kind: 'pull-open'; readonly number?: number; readonly url?: string }
  /** No `issue` in prd.json: publish the stories first. */
  | { readonly kind: 'unpublished' };

export interface DispatchPlanInput {
  readonly readiness: Pick<Readiness, 'ready'>;
  /** prd.json's branchName: the runs check it out, the story branches are `<branch>-<id>`. */
  readonly featureBranch: string;
  /** Runs of the workflow (any status; only `ralph: <id>` titles that are not completed count). */
  readonly runs: readonly RunLike[];
  /** Open pull requests (only those from a story branch of this feature count). */
  readonly openPulls: readonly PullLike[];
  /** Story runs in flight at most, 1 or more. */
  readonly maxParallel: number;
  /** The predicted files of a story (core/loop/sameFile.ts `predictAll`); none: no guard. */
  readonly filesOf?: (storyId: string) => readonly string[];
  readonly allowOverlap?: boolean;
  /** Stories without an issue wait ("publish first"); default true. */
  readonly requirePublished?: boolean;
}

export interface Dispatch {
  readonly storyId: string;
  readonly title: string;
  /** The story's issue (its `issue` field), when it has one. */
  readonly issue?: number;
}

export interface DispatchPlan {
  /** Stories to dispatch now, in run order. */
  readonly dispatch: readonly Dispatch[];
  /** Why each other ready story waits, in run order. */
  readonly waits: readonly { readonly storyId: string; readonly reason: DispatchWait }[];
  /** Runs in flight before the plan (every `ralph: …` run not completed). */
  readonly inFlight: number;
}

/** The story a run's display title names, or undefined when it is not one of ours. */
export function storyOfRunTitle(displayTitle: string): string | undefined {
  return displayTitle.startsWith(RUN_TITLE_PREFIX) && displayTitle.length > RUN_TITLE_PREFIX.length ? displayTitle.slice(RUN_TITLE_PREFIX.length) : undefined;
}

/** The story's issue number from its `issue` field alone (a mention in its title does not publish it). */
export function publishedIssue(story: Pick<Story, 'issue'>): number | undefined {
  return issuesOfField(story)[0];
}

export function planDispatch(input: DispatchPlanInput): DispatchPlan {
  const active = new Map<string, RunLike>();
  let inFlight = 0;
  for (const run of input.runs) {
    const id = isStoryRun(run) ? storyOfRunTitle(run.displayTitle) : undefined;
    if (id !== undefined && run.status !== 'completed') {
      inFlight++;
      active.set(id, run);
    }
  }
  const pulls = new Map(input.openPulls.filter(isOwnPull).map((p) => [p.headRef, p]));
  const filesOf = input.filesOf ?? (() => []);
  const waits: { storyId: string; reason: DispatchWait }[] = [];
  const candidates: string[] = [];
  const holders: { storyId: string; files: readonly string[] }[] = [];
  const byId = new Map<string, Story>();
  for (const { story } of input.readiness.ready) {
    if (byId.has(story.id)) {
      continue; // a duplicate id is a prd.json problem; it is dispatched once
    }
    byId.set(story.id, story);
    const run = active.get(story.id);
    const pull = pulls.get(storyBranchName(input.featureBranch, story.id));
    if (run) {
      waits.push({ storyId: story.id, reason: { kind: 'in-flight', url: run.htmlUrl } });
    } else if (pull) {
      waits.push({ storyId: story.id, reason: { kind: 'pull-open', number: pull.number, url: pull.htmlUrl } });
    } else if (input.requirePublished !== false && publishedIssue(story) === undefined) {
      waits.push({ storyId: story.id, reason: { kind: 'unpublished' } });
      continue;
    } else {
      candidates.push(story.id);
      continue;
    }
    holders.push({ storyId: story.id, files: filesOf(story.id) });
  }
  const plan = planStarts({
    ready: candidates,
    holders,
    running: inFlight,
    iterations: 0,
    config: { maxAgents: Math.max(1, input.maxParallel), maxIterations: Number.POSITIVE_INFINITY, failureLimit: Number.POSITIVE_INFINITY, noProgressLimit: Number.POSITIVE_INFINITY, allowOverlap: input.allowOverlap === true },
    filesOf,
    countersOf: () => NO_ATTEMPTS,
    needsYou: () => undefined,
    skipped: () => false,
    stopping: false,
  });
  const order = new Map(input.readiness.ready.map((s, i) => [s.story.id, i]));
  const allWaits = [...waits, ...plan.waits].sort((a, b) => (order.get(a.storyId) ?? 0) - (order.get(b.storyId) ?? 0));
  const dispatch = plan.start.map((id) => {
    const story = byId.get(id) as Story;
    return { storyId: id, title: story.title, issue: publishedIssue(story) };
  });
  return { dispatch, waits: allWaits, inFlight };
}

/** The sentence for why a ready story is not dispatched. */
export function describeDispatchWait(reason: DispatchWait): string {
  switch (reason.kind) {
    case 'in-flight':
      return `runs on GitHub Actions now${reason.url ? ` (${reason.url})` : ''}`;
    case 'pull-open':
      return `its pull request${reason.number !== undefined ? ` #${reason.number}` : ''} is open: it waits for the merge`;
    case 'unpublished':
      return 'not published: publish the stories to GitHub first (Publish Stories to GitHub…, or ralph-workbench github publish)';
    case 'slot-full':
      return `waits for a free slot (${reason.running}/${reason.maxAgents} runs in flight)`;
    default:
      return describeWait(reason);
  }
}
