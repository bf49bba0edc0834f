/**
 * `.ralph/runs.jsonl`: one JSON object per line, one line per iteration. Written by appending
 * `serializeRun(record)`; read back tolerantly (a torn or hand-edited line is skipped and reported
 * with its line number, the rest still loads).
 */

/** `rate-limited`: the agent stopped at its provider's usage or rate limit (or an overload); the loop waits and runs the story again. */
export type RunOutcome = 'passed' | 'failed' | 'no-progress' | 'stopped' | 'false-complete' | 'error' | 'rate-limited';

export const RUN_OUTCOMES: readonly RunOutcome[] = ['passed', 'failed', 'no-progress', 'stopped', 'false-complete', 'error', 'rate-limited'];

/** Token counts as the agent reported them (`input` as it says: Codex's includes its cached tokens). */
export interface RunTokens {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

/** Whether the agent's output held a receipt: read, none printed, or one that could not be read. */
export const RECEIPT_STATES = ['parsed', 'none', 'unreadable'] as const;
export type ReceiptState = (typeof RECEIPT_STATES)[number];

export interface FeatCommit {
  readonly sha: string;
  readonly subject: string;
}

export interface RunRecord {
  /** ISO 8601 start and end times. */
  readonly start: string;
  readonly end: string;
  readonly storyId: string;
  readonly storyTitle: string;
  /** Agent preset id (or "custom"). */
  readonly agent: string;
  /** Null when unknown (no shell integration) or the agent was ended. */
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly passingBefore: number;
  readonly passingAfter: number;
  readonly storyPasses: boolean;
  /** The `feat: <id> - …` commit made during the iteration, or null. */
  readonly commit: FeatCommit | null;
  /** The agent printed <promise>COMPLETE</promise>. */
  readonly complete: boolean;
  readonly outcome: RunOutcome;
  /** Workspace-relative path of the prompt file (e.g. `.ralph/prompts/20260101-120000-US-001.md`). */
  readonly promptFile: string;
  /** 1-based iteration number within its loop. */
  readonly iteration: number;
  /** Identifies the loop (or single run) the iteration belonged to. */
  readonly loopId: string;
  /** What the agent reported spending, in US dollars (absent: not reported; never a guess). */
  readonly cost?: number;
  /** Tokens the agent reported (absent when unknown). */
  readonly tokens?: RunTokens;
  readonly model?: string;
  /** The agent's own count of turns. */
  readonly turns?: number;
  /** Whether a receipt was read from the agent's output (absent: older lines, or not looked for). */
  readonly receipt?: ReceiptState;
  /** ISO 8601: when a rate-limited agent said its limit resets. */
  readonly resetAt?: string;
  /** A failed run: its normalised failure signature (src/core/insights/signature.ts). */
  readonly signature?: string;
  /** A failed run: its last error lines as printed (ANSI escapes removed), at most MAX_ERROR_LINES of MAX_ERROR_LINE_CHARS (the signature issue quotes them). */
  readonly errorLines?: readonly string[];
  /** Paths the agent changed but left uncommitted (at most MAX_UNCOMMITTED; absent when none or not checked). */
  readonly uncommitted?: readonly string[];
  /** How many more uncommitted paths there were than listed. */
  readonly uncommittedMore?: number;
  /** Set for an iteration of a parallel loop: where it ran and what became of its work. */
  readonly parallel?: ParallelRunFields;
}

export interface RunTokens {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

/** What merging a story's worktree did (absent while not tried: the agent did not finish the story). */
export const MERGE_RESULTS = ['merged', 'conflict', 'check-failed', 'error'] as const;
export type MergeResult = (typeof MERGE_RESULTS)[number];

export interface ParallelRunFields {
  /** The story's wave in the schedule when the loop began (0: ready then). */
  readonly wave: number;
  /** The worktree folder (absolute) and its branch. */
  readonly worktree: string;
  readonly branch: string;
  readonly merge?: MergeResult;
  /** The feature branch's commit that merged the story. */
  readonly mergeCommit?: string;
}

/** A signature read back is cut to this length (a hand-edited line cannot make a row unbounded). */
export const MAX_SIGNATURE = 500;

/** A failed run's error lines: at most this many, each at most this long (also when read back). */
export const MAX_ERROR_LINES = 10;
export const MAX_ERROR_LINE_CHARS = 300;

/** At most this many uncommitted paths are recorded per iteration. */
export const MAX_UNCOMMITTED = 50;

/** Where the runs are recorded, relative to the workspace folder. */
export const RUNS_FILE = '.ralph/runs.jsonl';

/** One line of runs.jsonl, with its newline; fields always in the same order. */
export function serializeRun(r: RunRecord): string {
  const ordered: RunRecord = {
    start: r.start,
    end: r.end,
    storyId: r.storyId,
    storyTitle: r.storyTitle,
    agent: r.agent,
    exitCode: r.exitCode,
    durationMs: r.durationMs,
    passingBefore: r.passingBefore,
    passingAfter: r.passingAfter,
    storyPasses: r.storyPasses,
    commit: r.commit ? { sha: r.commit.sha, subject: r.commit.subject } : null,
    complete: r.complete,
    outcome: r.outcome,
    promptFile: r.promptFile,
    iteration: r.iteration,
    loopId: r.loopId,
    ...receiptFields(r),
    ...(r.resetAt !== undefined ? { resetAt: r.resetAt } : {}),
    ...(r.signature ? { signature: r.signature } : {}),
    ...(r.errorLines && r.errorLines.length > 0 ? { errorLines: r.errorLines } : {}),
    ...(r.uncommitted && r.uncommitted.length > 0 ? { uncommitted: r.uncommitted.slice(0, MAX_UNCOMMITTED) } : {}),
    ...(r.uncommittedMore ? { uncommittedMore: r.uncommittedMore } : {}),
    ...(r.parallel ? { parallel: parallelFields(r.parallel) } : {}),
  };
  // JSON.stringify escapes U+2028/9 and every control character, so the record is one line.
  return `${JSON.stringify(ordered)}\n`;
}

export interface RunsParseError {
  /** 1-based line number in runs.jsonl. */
  readonly line: number;
  readonly message: string;
}

export interface ParsedRuns {
  /** In file order (oldest first). */
  readonly runs: readonly RunRecord[];
  readonly errors: readonly RunsParseError[];
}

export function parseRuns(text: string): ParsedRuns {
  const runs: RunRecord[] = [];
  const errors: RunsParseError[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const r = parseRunLine(raw);
    if (typeof r === 'string') {
      errors.push({ line: i + 1, message: r });
    } else if (r) {
      runs.push(r);
    }
  });
  return { runs, errors };
}

/**
 * One line of runs.jsonl: the record, a message saying why it is not one, or undefined for a blank
 * line. The one per-line rule of parseRuns and of the streaming reader (src/node/insights/runsReader.ts).
 */
export function parseRunLine(raw: string): RunRecord | string | undefined {
  const line = raw.trim();
  if (line === '') {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    return `not valid JSON (${(e as Error).message})`;
  }
  return toRecord(value);
}

/** A record from parsed JSON, with defaults for fields older writers left out; a message when it is not a run. */
export function toRecord(v: unknown): RunRecord | string {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    return 'not a JSON object';
  }
  const o = v as Record<string, unknown>;
  const str = (k: string, d = ''): string => (typeof o[k] === 'string' ? (o[k] as string) : d);
  const num = (k: string, d = 0): number => (typeof o[k] === 'number' && Number.isFinite(o[k]) ? (o[k] as number) : d);
  const bool = (k: string): boolean => o[k] === true;
  if (typeof o.storyId !== 'string' || o.storyId === '') {
    return 'missing "storyId"';
  }
  if (typeof o.start !== 'string' || Number.isNaN(Date.parse(o.start))) {
    return 'missing or invalid "start" time';
  }
  const outcome = o.outcome;
  if (typeof outcome !== 'string' || !(RUN_OUTCOMES as readonly string[]).includes(outcome)) {
    return `unknown "outcome" ${JSON.stringify(outcome)}`;
  }
  const c = o.commit;
  const commit =
    typeof c === 'object' && c !== null && typeof (c as Record<string, unknown>).sha === 'string'
      ? { sha: (c as Record<string, string>).sha, subject: typeof (c as Record<string, unknown>).subject === 'string' ? (c as Record<string, string>).subject : '' }
      : null;
  const start = o.start;
  const end = str('end', start);
  const duration = typeof o.durationMs === 'number' && Number.isFinite(o.durationMs) ? o.durationMs : Math.max(0, Date.parse(end) - Date.parse(start) || 0);
  const record: Mutable<RunRecord> = {
    start,
    end,
    storyId: o.storyId,
    storyTitle: str('storyTitle'),
    agent: str('agent'),
    exitCode: typeof o.exitCode === 'number' && Number.isFinite(o.exitCode) ? o.exitCode : null,
    durationMs: duration,
    passingBefore: num('passingBefore'),
    passingAfter: num('passingAfter'),
    storyPasses: bool('storyPasses'),
    commit,
    complete: bool('complete'),
    outcome: outcome as RunOutcome,
    promptFile: str('promptFile'),
    iteration: num('iteration', 1),
    loopId: str('loopId'),
  };
  // The optional fields are set one by one, in serializeRun's order: spreading partial objects into
  // the literal cost the stats reader (100,000 lines, scripts/bench-insights.mjs) more than JSON.parse.
  addReceipt(record, o);
  if (typeof o.signature === 'string' && o.signature.trim() !== '') {
    record.signature = o.signature.slice(0, MAX_SIGNATURE);
  }
  const errorLines = errorLinesOf(o.errorLines);
  if (errorLines) {
    record.errorLines = errorLines;
  }
  addUncommitted(record, o);
  const parallel = parallelOf(o.parallel);
  if (parallel) {
    record.parallel = parallel;
  }
  return record;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The receipt fields in their order, each only when known. */
function receiptFields(r: RunRecord): Pick<RunRecord, 'cost' | 'tokens' | 'model' | 'turns' | 'receipt'> {
  return {
    ...(r.cost !== undefined ? { cost: r.cost } : {}),
    ...(r.tokens ? { tokens: { input: r.tokens.input, output: r.tokens.output, cacheRead: r.tokens.cacheRead, cacheWrite: r.tokens.cacheWrite } } : {}),
    ...(r.model !== undefined ? { model: r.model } : {}),
    ...(r.turns !== undefined ? { turns: r.turns } : {}),
    ...(r.receipt ? { receipt: r.receipt } : {}),
  };
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** The receipt fields and resetAt of a parsed line, set on `record`; a field of the wrong kind is dropped, not guessed. */
function addReceipt(record: Mutable<RunRecord>, o: Record<string, unknown>): void {
  if (typeof o.cost === 'number' && Number.isFinite(o.cost) && o.cost >= 0) {
    record.cost = o.cost;
  }
  const t = o.tokens;
  if (typeof t === 'object' && t !== null && !Array.isArray(t)) {
    const tk = t as Record<string, unknown>;
    if (isCount(tk.input) && isCount(tk.output) && isCount(tk.cacheRead) && isCount(tk.cacheWrite)) {
      record.tokens = { input: tk.input, output: tk.output, cacheRead: tk.cacheRead, cacheWrite: tk.cacheWrite };
    }
  }
  if (typeof o.model === 'string' && o.model !== '') {
    record.model = o.model;
  }
  if (isCount(o.turns)) {
    record.turns = o.turns;
  }
  if (typeof o.receipt === 'string' && (RECEIPT_STATES as readonly string[]).includes(o.receipt)) {
    record.receipt = o.receipt as ReceiptState;
  }
  if (typeof o.resetAt === 'string' && !Number.isNaN(Date.parse(o.resetAt))) {
    record.resetAt = o.resetAt;
  }
}

/** The parallel fields in their order, unknown keys dropped. */
function parallelFields(p: ParallelRunFields): ParallelRunFields {
  return {
    wave: p.wave,
    worktree: p.worktree,
    branch: p.branch,
    ...(p.merge ? { merge: p.merge } : {}),
    ...(p.mergeCommit ? { mergeCommit: p.mergeCommit } : {}),
  };
}

function parallelOf(v: unknown): ParallelRunFields | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    return undefined;
  }
  const o = v as Record<string, unknown>;
  if (typeof o.worktree !== 'string' || typeof o.branch !== 'string') {
    return undefined;
  }
  const merge = typeof o.merge === 'string' && (MERGE_RESULTS as readonly string[]).includes(o.merge) ? (o.merge as MergeResult) : undefined;
  return parallelFields({
    wave: typeof o.wave === 'number' && Number.isInteger(o.wave) && o.wave >= 0 ? o.wave : 0,
    worktree: o.worktree,
    branch: o.branch,
    merge,
    mergeCommit: typeof o.mergeCommit === 'string' && /^[0-9a-f]{7,64}$/.test(o.mergeCommit) ? o.mergeCommit : undefined,
  });
}

/** Error lines read back: strings only, the last MAX_ERROR_LINES, each cut (a hand-edited line cannot make them unbounded). */
function errorLinesOf(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) {
    return undefined;
  }
  const lines = v.filter((l): l is string => typeof l === 'string').slice(-MAX_ERROR_LINES).map((l) => l.slice(0, MAX_ERROR_LINE_CHARS));
  return lines.length > 0 ? lines : undefined;
}

function addUncommitted(record: Mutable<RunRecord>, o: Record<string, unknown>): void {
  const list = Array.isArray(o.uncommitted) ? o.uncommitted.filter((p): p is string => typeof p === 'string') : [];
  if (list.length === 0) {
    return;
  }
  const more = (typeof o.uncommittedMore === 'number' && Number.isFinite(o.uncommittedMore) ? o.uncommittedMore : 0) + Math.max(0, list.length - MAX_UNCOMMITTED);
  record.uncommitted = list.slice(0, MAX_UNCOMMITTED);
  if (more > 0) {
    record.uncommittedMore = more;
  }
}

export interface RunsSummary {
  readonly iterations: number;
  /** Distinct stories that an iteration turned to passing. */
  readonly storiesCompleted: number;
  /** Share of iterations whose outcome is "passed", rate-limited ones left out (`successRate`). */
  readonly successRate: number;
  /** Iterations the agent's usage or rate limit ended (left out of the rate). */
  readonly rateLimited: number;
  /** Mean duration, 0 when there are none. */
  readonly averageDurationMs: number;
}

export function summarizeRuns(runs: readonly RunRecord[]): RunsSummary {
  const n = runs.length;
  if (n === 0) {
    return { iterations: 0, storiesCompleted: 0, successRate: 0, rateLimited: 0, averageDurationMs: 0 };
  }
  const completed = new Set(runs.filter((r) => r.outcome === 'passed' && r.storyPasses).map((r) => r.storyId));
  const passed = runs.filter((r) => r.outcome === 'passed').length;
  const total = runs.reduce((s, r) => s + Math.max(0, r.durationMs), 0);
  const limited = runs.filter((r) => r.outcome === 'rate-limited').length;
  return { iterations: n, storiesCompleted: completed.size, successRate: successRate(passed, n, limited), rateLimited: limited, averageDurationMs: Math.round(total / n) };
}

/**
 * The share of runs that passed, 0..1, of the runs that ran their course: a rate-limited run was
 * stopped by the agent's provider, not by the work (it is shown as a limit wait), so it is left out.
 * 0 when no run ran its course.
 */
export function successRate(passed: number, runs: number, rateLimited: number): number {
  const counted = runs - rateLimited;
  return counted <= 0 ? 0 : passed / counted;
}

/**
 * "71% success (1 rate-limited run not counted)", or "none ran its course" when every run was
 * limited: the rate leaves the limited runs out, and says so (the Runs view, stats, the dashboard).
 */
export function successText(runs: number, rateLimited: number, rate: number, word: string): string {
  const limited = rateLimited > 0 ? ` (${rateLimited} rate-limited run${rateLimited === 1 ? '' : 's'} not counted)` : '';
  return `${runs > rateLimited ? `${Math.round(rate * 100)}% ${word}` : 'none ran its course'}${limited}`;
}

/** The Runs view's summary line, e.g. "7 iterations · 5 stories completed · 71% success · avg 4m 05s". */
export function summaryLine(s: RunsSummary): string {
  if (s.iterations === 0) {
    return 'No iterations yet';
  }
  return [
    `${s.iterations} iteration${s.iterations === 1 ? '' : 's'}`,
    `${s.storiesCompleted} stor${s.storiesCompleted === 1 ? 'y' : 'ies'} completed`,
    successText(s.iterations, s.rateLimited, s.successRate, 'success'),
    `avg ${formatDuration(s.averageDurationMs)}`,
  ].join(' · ');
}

/** "850ms", "42s", "4m 05s", "1h 02m". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) {
    return '?';
  }
  if (ms < 1000) {
    return `${Math.round(ms)}ms`;
  }
  const s = Math.round(ms / 1000);
  if (s < 60) {
    return `${s}s`;
  }
  const m = Math.floor(s / 60);
  if (m < 60) {
    return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  }
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The first commit (callers pass newest first) whose subject is `feat: <id> - <title>` for the
 * story; also accepts `feat: [<id>] - …`, a scope (`feat(ui): …`) and any separator after the id.
 * `US-1` does not match `US-10`.
 */
export function detectFeatCommit(commits: readonly (FeatCommit | string)[], storyId: string): FeatCommit | null {
  if (storyId === '') {
    return null;
  }
  const id = escapeRegExp(storyId);
  // The id must end there: not followed by a word character, a dot, or a dash that continues it (US-1 vs US-10, US-1-b).
  const re = new RegExp(`^\\s*feat(?:\\([^)]*\\))?!?:\\s*(?:\\[${id}\\]|${id}(?![\\w.]|-\\w))`, 'i');
  for (const c of commits) {
    const commit = typeof c === 'string' ? { sha: '', subject: c } : c;
    const subject = commit.subject.split(/\r?\n/)[0];
    if (re.test(subject)) {
      return { sha: commit.sha, subject };
    }
  }
  return null;
}

/** The commit subject an iteration should produce: `feat: <id> - <title>` (one line). */
export function featCommitSubject(storyId: string, title: string): string {
  return `feat: ${storyId} - ${title}`.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/** A list of paths for a message (uncommitted files): the first few, then how many more. */
export function fewPaths(files: readonly string[], max = 5): string {
  return files.slice(0, max).join(', ') + (files.length > max ? `, and ${files.length - max} more` : '');
}
