/**
 * Dispatch Ready Stories (issue 20): reads the workflow's runs and the open pull requests through
 * a port (the GitHub client's methods of the issue-20 contract), decides with the pure plan
 * (core/github/dispatchPlan.ts), then dispatches the workflow for each story it chose, or, when an
 * assignee is configured (`ralph.github.agentAssignee`: a hosted coding agent), assigns the
 * story's issue to it instead. Returns what it did, story by story; a failed write stops there
 * (the next dispatch re-reads the runs before writing again: a POST is never repeated blindly).
 */
import { type DispatchPlan, planDispatch } from '../../core/github/dispatchPlan';
import { WORKFLOW_FILE } from '../../core/github/workflow';
import { predictAll } from '../../core/loop/sameFile';
import type { PrdAnalysis } from '../../core/prd/index';
import { errorMessage } from '../../core/errorMessage';
import { readPredictionInputs } from '../parallel/predictionInputs';
import { GitHubError } from './errors';

/** The contract's WorkflowRun, as far as dispatching reads it. */
export interface DispatchRun {
  readonly displayTitle: string;
  readonly status: string;
  readonly htmlUrl: string;
  /** What started the run: only a dispatched one is a story's (core isStoryRun). */
  readonly event?: string;
}

/** The contract's PullRequest, as far as dispatching reads it. */
export interface DispatchPull {
  readonly number: number;
  readonly state: 'open' | 'closed';
  readonly headRef: string;
  readonly htmlUrl: string;
  /** A fork's pull request: never a story's (core isOwnPull). */
  readonly fromFork?: boolean;
}

/** The GitHub client's methods dispatching uses (their signatures are the issue-20 contract's). */
export interface DispatchPort {
  getWorkflow(workflowFile: string): Promise<{ id: number; state: string; path: string }>;
  listWorkflowRuns(workflowFile: string, filter?: { event?: string; status?: string; branch?: string }): Promise<readonly DispatchRun[]>;
  listPulls(filter: { state?: 'open' | 'closed' | 'all'; head?: string; base?: string }): Promise<readonly DispatchPull[]>;
  dispatchWorkflow(workflowFile: string, ref: string, inputs: Record<string, string>): Promise<void>;
  addAssignees(number: number, assignees: readonly string[]): Promise<void>;
}

export interface DispatchOptions {
  readonly root: string;
  readonly analysis: PrdAnalysis;
  readonly port: DispatchPort;
  readonly maxParallel: number;
  /** Decide and report, write nothing. */
  readonly dryRun: boolean;
  /** Assign each chosen story's issue to this login instead of dispatching the workflow. */
  readonly assignee?: string;
  /** The ref whose ralph.yml runs (default: the feature branch). */
  readonly ref?: string;
  readonly files: { readonly prd: string; readonly progress: string; readonly pin: string };
  readonly allowOverlap: boolean;
}

export interface DispatchDone {
  readonly storyId: string;
  readonly issue?: number;
  readonly action: 'dispatched' | 'assigned' | 'would-dispatch' | 'would-assign';
  /** Whom the issue was (or would be) assigned to. */
  readonly assignee?: string;
}

export interface DispatchResult {
  readonly plan: DispatchPlan;
  readonly done: readonly DispatchDone[];
  /** The write that failed (the ones before it landed), with a message for a person. */
  readonly failed?: { readonly storyId: string; readonly message: string };
}

/** A failure before anything was decided, said so the user knows what to do. */
export class DispatchError extends Error {}

const ACTIVE = new Set(['active']);

/** Why the workflow cannot be dispatched, in words, or undefined when it can. */
async function workflowProblem(port: DispatchPort): Promise<string | undefined> {
  try {
    const wf = await port.getWorkflow(WORKFLOW_FILE);
    return ACTIVE.has(wf.state) ? undefined : `the workflow ${WORKFLOW_FILE} is ${wf.state.replace(/_/g, ' ')}: enable it in the repository's Actions tab`;
  } catch (e) {
    if (e instanceof GitHubError && e.kind === 'not-found') {
      return `the repository has no workflow ${WORKFLOW_FILE} on its default branch (or Actions is off): add it with Ralph: Add GitHub Actions Workflow (ralph-workbench github workflow), commit and push`;
    }
    throw e;
  }
}

export async function dispatchReady(o: DispatchOptions): Promise<DispatchResult> {
  const branch = o.analysis.doc.branchName;
  if (branch === undefined || branch.trim() === '') {
    throw new DispatchError('prd.json names no branchName: the workflow checks a feature branch out, so set branchName first');
  }
  if (o.assignee === undefined) {
    const problem = await workflowProblem(o.port);
    if (problem) {
      throw new DispatchError(problem);
    }
  }
  const [runs, pulls, inputs] = await Promise.all([
    o.port.listWorkflowRuns(WORKFLOW_FILE),
    o.port.listPulls({ state: 'open', base: branch }),
    readPredictionInputs(o.root, o.files),
  ]);
  const predictions = predictAll(o.analysis.doc.stories, inputs);
  const plan = planDispatch({
    readiness: o.analysis.readiness,
    featureBranch: branch,
    runs,
    openPulls: pulls.filter((p) => p.state === 'open'),
    maxParallel: o.maxParallel,
    filesOf: (id) => predictions.get(id) ?? [],
    allowOverlap: o.allowOverlap,
  });
  const done: DispatchDone[] = [];
  for (const d of plan.dispatch) {
    const assign = o.assignee !== undefined && d.issue !== undefined;
    if (o.dryRun) {
      done.push({ storyId: d.storyId, issue: d.issue, action: assign ? 'would-assign' : 'would-dispatch', assignee: assign ? o.assignee : undefined });
      continue;
    }
    try {
      if (assign) {
        await o.port.addAssignees(d.issue as number, [o.assignee as string]);
      } else {
        await o.port.dispatchWorkflow(WORKFLOW_FILE, o.ref ?? branch, { story: d.storyId, branch, 'max-parallel': String(o.maxParallel) });
      }
    } catch (e) {
      return { plan, done, failed: { storyId: d.storyId, message: errorMessage(e) } };
    }
    done.push({ storyId: d.storyId, issue: d.issue, action: assign ? 'assigned' : 'dispatched', assignee: assign ? o.assignee : undefined });
  }
  return { plan, done };
}
