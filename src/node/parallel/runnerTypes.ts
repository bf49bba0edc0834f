/**
 * What the parallel runner (runner.ts) tells and needs: its events (the CLI's status lines, the
 * extension's views), its ports, and a story as it sees it. Apart so that runner.ts stays small.
 */
import type { Clock } from '../../core/loop/clock';
import type { AgentOutcome, NeedsYouItem, ParallelStop, StoryPhase } from '../../core/loop/parallelLoop';
import type { MergeResult } from '../../core/runs/runs';
import type { ResumeReport } from './resume';
import type { StoryRunContext } from './storyRun';
import type { StoryWorktree } from './worktrees';

export type RunnerEvent =
  | { readonly kind: 'resumed'; readonly report: ResumeReport }
  | { readonly kind: 'started'; readonly storyId: string; readonly storyTitle: string; readonly iteration: number; readonly maxIterations: number; readonly runId: string; readonly worktree: StoryWorktree; readonly logFile: string; readonly wave: number }
  | { readonly kind: 'agentEnded'; readonly storyId: string; readonly runId: string; readonly outcome: AgentOutcome; readonly exitCode: number | null; readonly durationMs: number; readonly message?: string }
  | { readonly kind: 'merging'; readonly storyId: string }
  | { readonly kind: 'merged'; readonly storyId: string; readonly result: MergeResult; readonly commit?: string; readonly message?: string; readonly conflictFiles?: readonly string[] }
  | { readonly kind: 'needsYou'; readonly item: NeedsYouItem }
  | { readonly kind: 'note'; readonly storyId?: string; readonly message: string }
  /** An agent hit its limit: nothing starts until `until` (ms since the epoch), then its story runs again. */
  | { readonly kind: 'waiting'; readonly storyId: string; readonly agent: string; readonly until: number; readonly source: 'reset' | 'backoff' }
  | { readonly kind: 'stopped'; readonly stop: ParallelStop };

export interface ParallelRunPorts extends Pick<StoryRunContext, 'executor' | 'planAgent' | 'issuePlanFor' | 'writeFile'> {
  onEvent?(event: RunnerEvent): void;
  readonly now?: () => Date;
  /** Sleeping through an agent's limit (default: the real clock). */
  readonly clock?: Clock;
}

/** One story as the runner sees it (the graph's marks, the Needs You node, the CLI's status). */
export interface StoryStatus {
  readonly storyId: string;
  readonly phase: StoryPhase;
  readonly worktree?: StoryWorktree;
  /** While its agent runs. */
  readonly runId?: string;
  readonly startedAt?: number;
  readonly iteration?: number;
}
