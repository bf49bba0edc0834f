/**
 * The Needs You node of the Stories view as data (issue 19): one row per open item, with its
 * label, tooltip and actions, the header's label, and which items are new since the last look
 * (so each item gets one notification, not one per refresh). Pure: the view draws it.
 */
import type { NeedsYouWhy } from '../loop/waitReasons';
import { clip } from '../text';
import type { KeptWhy } from './interrupted';

/** Why a row is listed: an item a run raised, or a worktree a run that did not end kept. */
export type NeedsYouRowWhy = NeedsYouWhy | KeptWhy;

export interface NeedsYouInput {
  /** The workspace folder's key (items of two folders never mix). */
  readonly folderKey: string;
  readonly storyId: string;
  readonly why: NeedsYouRowWhy;
  readonly message: string;
  /** The files its merge conflicted in (a conflict). */
  readonly conflictFiles?: readonly string[];
  /** Found in `.ralph/parallel.json` by a reopened window (no run of this window raised it): its worktree can be removed. */
  readonly recovered?: boolean;
  /** Commits its worktree holds that the feature branch lacks (a recovered row). */
  readonly commits?: number;
  /** The agent's question (a question), as text. */
  readonly detail?: string;
}

/** A question in a row's label is cut to this (the tooltip has it whole). */
const QUESTION_IN_LABEL = 60;

export type NeedsYouAction = 'retry' | 'skip' | 'showTerminal' | 'openWorktree' | 'openConflict' | 'resume' | 'removeWorktree';

export interface NeedsYouRow {
  readonly key: string;
  /** "US-003 — merge conflict in src/shared.txt". */
  readonly label: string;
  readonly tooltip: string;
  readonly actions: readonly NeedsYouAction[];
  /** The notification's button. */
  readonly mainAction: NeedsYouAction;
}

const SHORT: Record<NeedsYouRowWhy, string> = {
  failures: 'its agent kept failing',
  'no-progress': 'no progress',
  conflict: 'merge conflict',
  'check-failed': 'the check failed after its merge',
  question: 'its agent asked a question',
  stopped: 'you stopped its agent',
  error: 'stopped with an error',
  budget: 'over its cost cap',
  interrupted: 'interrupted, worktree kept',
  unmerged: 'finished, not merged',
  orphaned: 'a worktree no run knows',
};

const KEPT: readonly NeedsYouRowWhy[] = ['interrupted', 'unmerged', 'orphaned'];

export function needsYouKey(i: Pick<NeedsYouInput, 'folderKey' | 'storyId' | 'why' | 'message'>): string {
  return `${i.folderKey}\n${i.storyId}\n${i.why}\n${i.message}`;
}

export function needsYouRow(i: NeedsYouInput): NeedsYouRow {
  const files = i.conflictFiles ?? [];
  const commits = i.commits === undefined ? '' : `, ${i.commits} commit${i.commits === 1 ? '' : 's'} not merged`;
  const short =
    i.why === 'conflict' && files.length > 0
      ? `merge conflict in ${files.length <= 2 ? files.join(', ') : `${files[0]} and ${files.length - 1} more files`}`
      : i.why === 'question' && i.detail
        ? `asks: ${clip(i.detail, QUESTION_IN_LABEL)}`
        : SHORT[i.why];
  const conflict = i.why === 'conflict' && files.length > 0;
  const row = { key: needsYouKey(i), label: `${i.storyId} — ${short}${i.recovered ? commits : ''}`, tooltip: i.message };
  if (KEPT.includes(i.why)) {
    // A worktree a run that did not end kept: Resume takes the run up again (an orphan is no story of it).
    const actions: NeedsYouAction[] = i.why === 'orphaned' ? ['openWorktree', 'removeWorktree'] : ['resume', 'openWorktree', 'removeWorktree'];
    return { ...row, actions, mainAction: actions[0] };
  }
  return {
    ...row,
    // No terminal survives a reload; a recovered row's worktree can go instead.
    actions: ['retry', 'skip', ...(i.recovered ? (['openWorktree', 'removeWorktree'] as const) : (['showTerminal', 'openWorktree'] as const)), ...(conflict ? (['openConflict'] as const) : [])],
    mainAction: conflict ? 'openConflict' : !i.recovered && (i.why === 'check-failed' || i.why === 'failures' || i.why === 'error' || i.why === 'question') ? 'showTerminal' : 'retry',
  };
}

/** "Needs You (2)". */
export function needsYouHeader(count: number): string {
  return `Needs You (${count})`;
}

/**
 * The items not announced yet; `seen` is updated to the open items (an item that closes and
 * opens again is announced again).
 */
export function itemsToAnnounce<T extends NeedsYouInput>(seen: Set<string>, open: readonly T[]): T[] {
  const keys = new Set(open.map(needsYouKey));
  for (const k of [...seen]) {
    if (!keys.has(k)) {
      seen.delete(k);
    }
  }
  const fresh = open.filter((i) => !seen.has(needsYouKey(i)));
  for (const i of fresh) {
    seen.add(needsYouKey(i));
  }
  return fresh;
}
