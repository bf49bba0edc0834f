/**
 * The Run Dashboard's charts from the figures (core/insights/stats.ts): for each, its points, its
 * table (already formatted) and the sentence that summarises it (format.ts `summaries`, the same
 * words as `ralph-workbench stats`). Texts are clamped to the protocol's limits so that a hostile
 * story title cannot get a message refused.
 */
import { formatDuration } from '../runs/runs';
import { type ChartData, DASHBOARD_LIMITS, type DashboardFilter, type DashboardHostMessage } from '../webview/dashboardProtocol';
import { formatCost, formatTokens, passedText, percent, summaries } from './format';
import type { RunStats } from './stats';

function clamp(s: string): string {
  return s.length > DASHBOARD_LIMITS.text ? `${s.slice(0, DASHBOARD_LIMITS.text - 1)}…` : s;
}

/** The last `DASHBOARD_LIMITS.points` items (the most recent ones). */
function recent<T>(items: readonly T[]): readonly T[] {
  return items.length > DASHBOARD_LIMITS.points ? items.slice(items.length - DASHBOARD_LIMITS.points) : items;
}

function chart(c: Omit<ChartData, 'rows' | 'title' | 'summary'> & { title: string; summary: string; rows: readonly (readonly string[])[] }): ChartData {
  return { ...c, title: clamp(c.title), summary: clamp(c.summary), rows: c.rows.map((r) => r.map(clamp)), points: c.points.map((p) => ({ label: clamp(p.label), value: p.value })) };
}

export function dashboardHeadline(s: RunStats): string {
  if (s.runs === 0) {
    return 'No runs match the filter.';
  }
  const t = s.tokens;
  return `${s.runs} runs · ${passedText(s)} · ${formatCost(s.cost)}${s.unknownCost > 0 ? ` (+${s.unknownCost} unknown)` : ''} · ${formatTokens(t.input + t.output)} tokens · ${formatDuration(s.durationMs)} of agent time`;
}

export function dashboardCharts(s: RunStats): ChartData[] {
  const stories = recent(s.stories);
  const limited = s.stories.filter((x) => x.rateLimited > 0);
  const merged = s.durations.some((d) => d.of > 1);
  return [
    chart({
      id: 'cost-per-story',
      title: 'Cost per story',
      summary: summaries.costPerStory(s),
      kind: 'bar',
      unit: 'usd',
      points: stories.map((x) => ({ label: x.storyId, value: x.cost })),
      columns: ['Story', 'Title', 'Cost', 'Runs with unknown cost', 'Attempts'],
      rows: stories.map((x) => [x.storyId, x.title, formatCost(x.cost), String(x.unknownCost), String(x.attempts)]),
    }),
    chart({
      id: 'tokens-per-story',
      title: 'Tokens per story',
      summary: summaries.tokensPerStory(s),
      kind: 'bar',
      unit: 'tokens',
      points: stories.map((x) => ({ label: x.storyId, value: x.tokens.input + x.tokens.output })),
      columns: ['Story', 'Input', 'Output', 'Cache read', 'Cache write'],
      rows: stories.map((x) => [x.storyId, formatTokens(x.tokens.input), formatTokens(x.tokens.output), formatTokens(x.tokens.cacheRead), formatTokens(x.tokens.cacheWrite)]),
    }),
    chart({
      id: 'cumulative-cost',
      title: 'Cumulative cost',
      summary: summaries.cumulativeCost(s),
      kind: 'line',
      unit: 'usd',
      points: s.costOverTime.map((p) => ({ label: new Date(p.t).toISOString().slice(0, 16).replace('T', ' '), value: p.cumulative })),
      columns: ['Day', 'Runs', 'Cost', 'Cumulative'],
      rows: recent(s.days).map((d) => [d.day, String(d.runs), formatCost(d.cost), formatCost(d.cumulative)]),
    }),
    chart({
      id: 'duration',
      title: 'Duration per iteration',
      summary: summaries.durations(s),
      kind: 'bar',
      unit: 'ms',
      points: s.durations.map((d) => ({ label: `#${d.index} ${d.storyId}`, value: d.durationMs })),
      columns: ['Run', 'Story', 'Iteration', 'Started', 'Duration', 'Outcome'],
      rows: s.durations.map((d) => [`#${d.index}${d.of > 1 ? ` (longest of ${d.of})` : ''}`, d.storyId, String(d.iteration), d.start, formatDuration(d.durationMs), d.outcome]),
      ...(merged ? { note: 'Each row stands for several consecutive iterations and shows the longest of them.' } : {}),
    }),
    chart({
      id: 'success-per-loop',
      title: 'Success rate per loop',
      summary: summaries.successPerLoop(s),
      kind: 'bar',
      unit: 'percent',
      points: recent(s.loops).map((l) => ({ label: l.loopId || '(no loop id)', value: l.successRate * 100 })),
      columns: ['Loop', 'Started', 'Runs', 'Passed', 'Success', 'Cost'],
      rows: recent(s.loops).map((l) => [l.loopId || '(no loop id)', l.start, String(l.runs), String(l.passed), percent(l.successRate), formatCost(l.cost)]),
    }),
    chart({
      id: 'attempts-per-story',
      title: 'Attempts per story',
      summary: summaries.attemptsPerStory(s),
      kind: 'bar',
      unit: 'count',
      points: stories.map((x) => ({ label: x.storyId, value: x.attempts })),
      columns: ['Story', 'Attempts', 'Passed'],
      rows: stories.map((x) => [x.storyId, String(x.attempts), String(x.passed)]),
    }),
    chart({
      id: 'limit-waits',
      title: 'Time waiting on limits',
      summary: summaries.limitWaits(s),
      kind: 'bar',
      unit: 'ms',
      points: recent(limited).map((x) => ({ label: x.storyId, value: x.limitWaitMs })),
      columns: ['Story', 'Rate-limited runs', 'Waited'],
      rows: recent(limited).map((x) => [x.storyId, String(x.rateLimited), formatDuration(x.limitWaitMs)]),
    }),
  ];
}

/**
 * The dashboard's stats message, within the protocol's limits whatever the files say: a feature
 * whose name (a prd.json `branchName`) is too long to be a filter is left out of the choices (its
 * runs still count under "All features"), the folder's name is clamped.
 */
export function dashboardStatsMessage(folder: string, filter: DashboardFilter, stats: RunStats, skipped: number): DashboardHostMessage {
  const features = stats.features.filter((f) => f.name.length <= DASHBOARD_LIMITS.text).slice(0, DASHBOARD_LIMITS.features);
  return { type: 'stats', folder: clamp(folder), filter, features, headline: clamp(dashboardHeadline(stats)), skipped, charts: dashboardCharts(stats) };
}
