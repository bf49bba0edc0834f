/**
 * Budget caps (`ralph.budget.*`, the CLI's `--max-cost` / `--max-tokens`): what a loop has spent
 * by its runs' receipts, and whether a cap is reached. The serial loop (loop.ts) and the parallel
 * loop (parallelLoop.ts) keep one tracker each and ask it before starting anything: once the
 * loop's spending reaches a cap nothing new starts (a deliberate stop); a story whose own spending
 * reaches its cap is not started again (the parallel loop makes it a Needs You item).
 *
 * Spending is what the agents reported, never a guess: a run without a cost (no receipt, or one
 * without that figure) adds nothing and is counted as unknown, and every message says how many.
 */
import type { RunTokens } from '../runs/runs';
import type { SettingValues } from '../settingKeys';

export interface Budget {
  /** US dollars a loop may spend (undefined or 0: no cap). */
  readonly maxCostPerLoop?: number;
  /** US dollars one story may spend in a loop, all its attempts together. */
  readonly maxCostPerStory?: number;
  /** Tokens a loop may use (see tokenTotal). */
  readonly maxTokensPerLoop?: number;
}

/** The caps of the settings (ralph.budget.*; 0: none). */
export function budgetOf(s: Pick<SettingValues, 'budgetMaxCostPerLoop' | 'budgetMaxCostPerStory' | 'budgetMaxTokensPerLoop'>): Budget {
  return { maxCostPerLoop: s.budgetMaxCostPerLoop, maxCostPerStory: s.budgetMaxCostPerStory, maxTokensPerLoop: s.budgetMaxTokensPerLoop };
}

/** What one run reported spending (receipts.ts `spendOf`). */
export interface RunSpend {
  /** US dollars. */
  readonly cost?: number;
  /** Tokens used (tokenTotal). */
  readonly tokens?: number;
}

interface Tally {
  cost: number;
  tokens: number;
  runs: number;
  /** Runs that reported no cost / no tokens. */
  noCost: number;
  noTokens: number;
}

const EMPTY: Tally = { cost: 0, tokens: 0, runs: 0, noCost: 0, noTokens: 0 };

/**
 * The tokens a run used, for the token cap: input, output and both cache counts as the agent
 * reported them, except that an `input` that already includes the cached tokens (Codex's) does
 * not count them twice.
 */
export function tokenTotal(t: RunTokens, cachedInInput: boolean): number {
  return cachedInInput ? t.input + t.output + t.cacheWrite : t.input + t.output + t.cacheRead + t.cacheWrite;
}

/** "$5.00", "$0.03"; below a cent, two significant digits ("$0.0041"). */
export function formatDollars(n: number): string {
  return `$${n >= 0.01 || n === 0 ? n.toFixed(2) : n.toPrecision(2)}`;
}

const tokenCount = (n: number): string => Math.round(n).toLocaleString('en-US');
const runs = (n: number): string => `${n} run${n === 1 ? '' : 's'}`;

/** "$5.12 spent in 14 runs; 2 runs reported no cost". */
function costSpent(t: Tally): string {
  return `${formatDollars(t.cost)} spent in ${runs(t.runs)}${t.noCost > 0 ? `; ${runs(t.noCost)} reported no cost` : ''}`;
}

/** A cap is set when it is a positive, finite number. */
function capOf(v: number | undefined): number | undefined {
  return v !== undefined && Number.isFinite(v) && v > 0 ? v : undefined;
}

export class BudgetTracker {
  private readonly loop: Tally = { ...EMPTY };
  private readonly stories = new Map<string, Tally>();

  constructor(readonly budget: Budget = {}) {}

  /** True when any cap is set. */
  get active(): boolean {
    return capOf(this.budget.maxCostPerLoop) !== undefined || capOf(this.budget.maxCostPerStory) !== undefined || capOf(this.budget.maxTokensPerLoop) !== undefined;
  }

  /** Adds one finished run (undefined: nothing is known of what it spent). */
  add(storyId: string, spend: RunSpend | undefined): void {
    const story = this.stories.get(storyId) ?? { ...EMPTY };
    for (const t of [this.loop, story]) {
      t.runs += 1;
      if (spend?.cost !== undefined) {
        t.cost += spend.cost;
      } else {
        t.noCost += 1;
      }
      if (spend?.tokens !== undefined) {
        t.tokens += spend.tokens;
      } else {
        t.noTokens += 1;
      }
    }
    this.stories.set(storyId, story);
  }

  /** The stop sentence when the loop's spending reached a cap, else undefined. */
  loopCapReached(): string | undefined {
    const cost = capOf(this.budget.maxCostPerLoop);
    if (cost !== undefined && this.loop.cost >= cost) {
      return `Stopped: the loop's cost cap ${formatDollars(cost)} is reached (${costSpent(this.loop)}).`;
    }
    const tokens = capOf(this.budget.maxTokensPerLoop);
    if (tokens !== undefined && this.loop.tokens >= tokens) {
      const unknown = this.loop.noTokens > 0 ? `; ${runs(this.loop.noTokens)} reported no tokens` : '';
      return `Stopped: the loop's token cap ${tokenCount(tokens)} is reached (${tokenCount(this.loop.tokens)} tokens used in ${runs(this.loop.runs)}${unknown}).`;
    }
    return undefined;
  }

  /** Why a story may not start again ("its cost cap $1.00 is reached ($1.20 spent in 3 runs)"), else undefined. */
  storyCapReached(storyId: string): string | undefined {
    const cap = capOf(this.budget.maxCostPerStory);
    const t = this.stories.get(storyId);
    if (cap === undefined || !t || t.cost < cap) {
      return undefined;
    }
    return `its cost cap ${formatDollars(cap)} is reached (${costSpent(t)})`;
  }
}
