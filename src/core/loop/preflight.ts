/**
 * The preflight of a run: everything that can make an iteration fail, checked before the run
 * changes anything (no branch created or checked out, no prompt file, no runs.jsonl line, no
 * terminal). Pure: the extension (src/services/run/preflight.ts) gathers the facts — trust, the
 * prd.json snapshot, the agent command planned with the program looked up on the terminal's PATH,
 * git's state, whether `.ralph/` may be written — and this module turns them into problems, each
 * with a kind, a message for the user and, where one setting fixes it, that setting's key (the
 * error's "Open Setting" button). An empty list means the run may start.
 */
import type { AgentCommandPlan } from './iteration';
import type { PrdAnalysis } from '../prd/index';
import type { RunStep } from './loop';
import { branchNameProblem } from '../parallel/names';

export type PreflightKind =
  | 'untrusted'
  | 'not-on-disk'
  | 'story-missing'
  | 'story-unrunnable'
  | 'agent-missing'
  | 'agent-command'
  | 'branch-name'
  | 'git-detached'
  | 'git-busy'
  | 'files';

export interface PreflightProblem {
  readonly kind: PreflightKind;
  readonly message: string;
  /** The setting that fixes it (the "Open Setting" button), e.g. `ralph.agent.preset`. */
  readonly setting?: string;
}

/** What git says about the folder (undefined: not a repository, or git is missing: git steps are skipped). */
export interface GitFacts {
  /** The checked-out branch; undefined when HEAD is detached. */
  readonly branch: string | undefined;
  /** A merge, rebase, cherry-pick, revert or bisect under way (its name), if any. */
  readonly operation?: string;
}

export interface PreflightInput {
  readonly trusted: boolean;
  /** The folder's URI scheme (runs need `file`). */
  readonly scheme: string;
  readonly folderName: string;
  /** How prd.json is named in messages (ralph.prdPath). */
  readonly prdLabel: string;
  /** The snapshot the loop chose the step from. */
  readonly prd: PrdAnalysis;
  /** The step the loop chose for the first iteration. */
  readonly step: RunStep;
  /** The story the user picked (Run Story), if any. */
  readonly requestedStory?: string;
  /** The agent command, planned from the settings with the program looked up on PATH. */
  readonly agent: AgentCommandPlan;
  readonly git: GitFacts | undefined;
  /** ralph.git.manageBranch: the run checks out prd.json's branchName. */
  readonly manageBranch: boolean;
  /** Why the run's files cannot be read or written (`.ralph/` a link leading outside, an unusable prompt template), if so. */
  readonly filesProblem?: string;
}

/** The problems of the workspace itself, known before prd.json is read (the runner asks these first). */
export function workspaceProblems(input: Pick<PreflightInput, 'trusted' | 'scheme' | 'folderName'>): PreflightProblem[] {
  if (!input.trusted) {
    return [{ kind: 'untrusted', message: 'Ralph runs agents only in a trusted workspace. Trust this folder to run agents; the views stay available read-only.' }];
  }
  if (input.scheme !== 'file') {
    return [{ kind: 'not-on-disk', message: `Ralph runs agents only in folders on disk; ${input.folderName} is a ${input.scheme}: folder.` }];
  }
  return [];
}

/** Every problem that would make the run fail after it changed something; empty: it may start. */
export function preflightProblems(input: PreflightInput): PreflightProblem[] {
  const problems = workspaceProblems(input);
  if (problems.length > 0) {
    return problems;
  }
  problems.push(...storyProblems(input));
  if (!input.agent.ok) {
    problems.push({ kind: input.agent.reason === 'missing-program' ? 'agent-missing' : 'agent-command', message: input.agent.message, setting: input.agent.setting });
  }
  if (input.filesProblem) {
    problems.push({ kind: 'files', message: input.filesProblem });
  }
  problems.push(...gitProblems(input));
  return problems;
}

function storyProblems({ prd, step, requestedStory, prdLabel }: PreflightInput): PreflightProblem[] {
  if (requestedStory !== undefined && requestedStory !== step.storyId) {
    // The loop would run another story than the one the user picked: say so rather than run it.
    return [{ kind: 'story-missing', message: `${requestedStory} is not in ${prdLabel} (any more). Nothing was run.` }];
  }
  const story = prd.doc.stories.find((s) => s.id === step.storyId);
  if (!story) {
    return [{ kind: 'story-missing', message: `${step.storyId} is not in ${prdLabel}. Nothing was run.` }];
  }
  if (story.idDerived) {
    // The agent finds its story, marks it passing and names its commit by the id in the file.
    return [{ kind: 'story-unrunnable', message: `The story "${story.title}" in ${prdLabel} has no id of its own. Give it an "id" to run it.` }];
  }
  return [];
}

function gitProblems({ git, manageBranch, prd, prdLabel }: PreflightInput): PreflightProblem[] {
  if (!git) {
    return []; // not a repository: the run skips its git steps (and says so in the log)
  }
  const problems: PreflightProblem[] = [];
  if (git.operation) {
    problems.push({ kind: 'git-busy', message: `git is in the middle of a ${git.operation}. Finish or abort it, then run again.` });
  }
  const branch = prd.doc.branchName;
  const checksOut = manageBranch && branch !== undefined && branch !== '';
  if (checksOut) {
    const bad = branchNameProblem(branch);
    if (bad) {
      problems.push({ kind: 'branch-name', message: `The branchName "${branch}" in ${prdLabel} is not a valid git branch name: ${bad}. Fix it, then run again.` });
    }
  } else if (git.branch === undefined) {
    // The agent commits on what is checked out: on a detached HEAD its commits belong to no branch.
    problems.push({
      kind: 'git-detached',
      message: `HEAD is detached, so the agent's commits would belong to no branch. Check out a branch${manageBranch ? ` or set "branchName" in ${prdLabel}` : ', or turn on ralph.git.manageBranch'}, then run again.`,
      setting: manageBranch ? undefined : 'ralph.git.manageBranch',
    });
  }
  return problems;
}

