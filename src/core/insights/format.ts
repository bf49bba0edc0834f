/**
 * The words of the run insights, one place for the CLI's `stats` and the dashboard's accessible
 * summaries: amounts of money and tokens, and one sentence per chart.
 */
import { formatDuration, successText } from '../runs/runs';
import type { RunStats } from './stats';

/** "$12.34"; below a dollar four decimals ("$0.0421"), since one iteration often costs cents. */
export function formatCost(usd: number): string {
  return usd !== 0 && Math.abs(usd) < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** "950", "12.3k", "4.56M". */
export function formatTokens(n: number): string {
  if (n < 1000) {
    return String(Math.round(n));
  }
  if (n < 1_000_000) {
    return `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)}k`;
  }
  return `${(n / 1_000_000).toFixed(2)}M`;
}

export function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** "60% passed (1 rate-limited run not counted)": the success rate leaves the limited runs out, and says so. */
export function passedText(s: Pick<RunStats, 'runs' | 'rateLimited' | 'successRate'>): string {
  return successText(s.runs, s.rateLimited, s.successRate, 'passed');
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "; 3 runs with unknown cost" or "". */
function unknownPart(unknown: number): string {
  return unknown > 0 ? `; ${plural(unknown, 'run')} with unknown cost` : '';
}

/** One sentence per chart, for screen readers and the CLI's header. */
export const summaries = {
  costPerStory(s: RunStats): string {
    const top = [...s.stories].sort((a, b) => b.cost - a.cost)[0];
    return `Total cost ${formatCost(s.cost)} over ${plural(s.stories.length, 'story', 'stories')}${top && top.cost > 0 ? `; most: ${top.storyId} at ${formatCost(top.cost)}` : ''}${unknownPart(s.unknownCost)}.`;
  },
  tokensPerStory(s: RunStats): string {
    const t = s.tokens;
    return `Tokens: ${formatTokens(t.input)} input, ${formatTokens(t.output)} output, ${formatTokens(t.cacheRead)} cache read, ${formatTokens(t.cacheWrite)} cache write.`;
  },
  cumulativeCost(s: RunStats): string {
    return s.days.length === 0 ? 'No cost recorded yet.' : `Cumulative cost ${formatCost(s.cost)} from ${s.days[0].day} to ${s.days[s.days.length - 1].day}${unknownPart(s.unknownCost)}.`;
  },
  durations(s: RunStats): string {
    if (s.runs === 0) {
      return 'No iterations yet.';
    }
    const longest = s.durations.reduce((a, b) => (b.durationMs > a.durationMs ? b : a));
    return `${plural(s.runs, 'iteration')}, average ${formatDuration(s.durationMs / s.runs)}, longest ${formatDuration(longest.durationMs)} (${longest.storyId}).`;
  },
  successPerLoop(s: RunStats): string {
    const ran = s.runs - s.rateLimited;
    const limited = s.rateLimited > 0 ? ` (${plural(s.rateLimited, 'rate-limited run')} not counted)` : '';
    return `${plural(s.loops.length, 'loop')}; ${ran > 0 ? `${percent(s.successRate)} of ${plural(ran, 'iteration')} passed` : 'no iteration ran its course'}${limited}.`;
  },
  attemptsPerStory(s: RunStats): string {
    const most = [...s.stories].sort((a, b) => b.attempts - a.attempts)[0];
    return most ? `${plural(s.runs, 'attempt')} over ${plural(s.stories.length, 'story', 'stories')}; most: ${most.storyId} with ${most.attempts}.` : 'No attempts yet.';
  },
  limitWaits(s: RunStats): string {
    if (s.rateLimited === 0) {
      return 'No run hit a rate or usage limit.';
    }
    return `${plural(s.rateLimited, 'rate-limited run')}, ${formatDuration(s.limitWaitMs)} waiting on limits${s.limitWaitsUnknown > 0 ? ` (${s.limitWaitsUnknown} wait${s.limitWaitsUnknown === 1 ? '' : 's'} of unknown length)` : ''}.`;
  },
};
