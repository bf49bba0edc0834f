/**
 * Why a ready story does not run now in the parallel loop, as data (the scheduler's output, the
 * Task Graph's and the Stories view's input), and the one renderer that turns it into the sentence
 * the user reads: "waits for US-004: both change src/api/tasks.ts".
 */

/** Why a story stopped and waits for the user (a Needs You item). */
export type NeedsYouWhy =
  /** The failure breaker: its agent exited with an error `count` times in a row. */
  | 'failures'
  /** The no-progress breaker: `count` attempts in a row ended without the story passing. */
  | 'no-progress'
  /** Its merge into the feature branch conflicted. */
  | 'conflict'
  /** The check command failed after its merge (the merge was reverted). */
  | 'check-failed'
  /** Its agent asked a question. */
  | 'question'
  /** The user ended its agent (Stop This Agent) while the loop went on. */
  | 'stopped'
  /** Anything else that stopped it (a dirty worktree, a merge that failed): `message` says what. */
  | 'error'
  /** Its cost cap (ralph.budget.maxCostPerStory) is reached: `message` says the cap and what it spent. */
  | 'budget';

export type WaitReason =
  /** Every slot is taken. */
  | { readonly kind: 'slot-full'; readonly running: number; readonly maxAgents: number }
  /** A running (or finished but unmerged) story is predicted to change the same files. */
  | { readonly kind: 'overlap'; readonly waitsFor: string; readonly files: readonly string[] }
  | { readonly kind: 'needs-you'; readonly why: NeedsYouWhy; readonly count?: number; readonly message?: string }
  /** The user skipped it (Skip Story). */
  | { readonly kind: 'skipped' }
  /** The loop started its maximum number of iterations (counted across slots). */
  | { readonly kind: 'iteration-limit'; readonly maxIterations: number }
  /** A stop was requested: nothing new starts. */
  | { readonly kind: 'stopping' }
  /** An agent hit its usage or rate limit: nothing new starts until the wait for its reset ends. */
  | { readonly kind: 'rate-limited' };

/** The sentence for a wait reason, e.g. "waits for US-004: both change src/api/tasks.ts". */
export function describeWait(reason: WaitReason): string {
  switch (reason.kind) {
    case 'slot-full':
      return `waits for a free slot (${reason.running}/${reason.maxAgents} agents running)`;
    case 'overlap':
      return `waits for ${reason.waitsFor}: both change ${fileList(reason.files)}`;
    case 'needs-you':
      return `needs you: ${needsYouText(reason)}`;
    case 'skipped':
      return 'skipped (you chose Skip Story)';
    case 'iteration-limit':
      return `not started: the loop reached its maximum of ${times(reason.maxIterations, 'iteration')}`;
    case 'stopping':
      return 'not started: the loop is stopping';
    case 'rate-limited':
      return "waits for the agent's limit to reset";
  }
}

/** The few words a narrow row has room for: "waits for a free slot", "waits for US-004", "needs you". */
export function shortWait(reason: WaitReason): string {
  switch (reason.kind) {
    case 'slot-full':
      return 'waits for a free slot';
    case 'overlap':
      return `waits for ${reason.waitsFor}`;
    case 'needs-you':
      return 'needs you';
    case 'skipped':
      return 'skipped';
    case 'iteration-limit':
    case 'stopping':
      return 'not started';
    case 'rate-limited':
      return 'waits for the limit';
  }
}

function needsYouText(r: { readonly why: NeedsYouWhy; readonly count?: number; readonly message?: string }): string {
  const detail = r.message ? ` (${r.message})` : '';
  switch (r.why) {
    case 'failures':
      return `its agent exited with an error ${times(r.count ?? 1, 'time')} in a row${detail}`;
    case 'no-progress':
      return `${times(r.count ?? 1, 'attempt')} in a row ended without the story passing${detail}`;
    case 'conflict':
      return `its merge into the feature branch conflicted${detail}`;
    case 'check-failed':
      return `the check failed after its merge; the merge was reverted${detail}`;
    case 'question':
      return `its agent asked a question${detail}`;
    case 'stopped':
      return `you stopped its agent${detail}`;
    case 'error':
      return r.message ?? 'it stopped with an error';
    case 'budget':
      return r.message ?? 'its cost cap is reached';
  }
}

/** `a.ts`, `a.ts and b.ts`, `a.ts, b.ts and c.ts`, `a.ts, b.ts and 2 more files`. */
function fileList(files: readonly string[]): string {
  if (files.length <= 1) {
    return files[0] ?? 'a file';
  }
  if (files.length <= 3) {
    return `${files.slice(0, -1).join(', ')} and ${files[files.length - 1]}`;
  }
  return `${files.slice(0, 2).join(', ')} and ${files.length - 2} more files`;
}

function times(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
