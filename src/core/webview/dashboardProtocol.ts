/**
 * The protocol between the extension host and the Run Dashboard page (issue 21), declared once for
 * both sides and validated with zod on arrival (host: `parseDashboardPageMessage`, page:
 * `parseDashboardHostMessage`).
 *
 * The page posts `ready` when its script runs and `filter` when the user picks a feature or dates;
 * the host answers each with `stats` (the latest is the truth, and is posted again whenever runs.jsonl,
 * prd.json or the archive change) or `empty` when there is nothing to draw. The host builds the charts
 * (core/insights/charts.ts): the page only draws them, and shows every text as text.
 */
import { z } from 'zod';
import { type Parsed, parseWith } from './graphProtocol';

export const DASHBOARD_LIMITS = {
  /** Points of a chart and rows of its table. */
  points: 5_000,
  text: 2_000,
  features: 1_000,
} as const;

const text = z.string().max(DASHBOARD_LIMITS.text);
/** `YYYY-MM-DD`, what an `<input type="date">` gives. */
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const dashboardFilterSchema = z.object({
  feature: text.optional(),
  since: day.optional(),
  until: day.optional(),
});
export type DashboardFilter = z.infer<typeof dashboardFilterSchema>;

export const chartSchema = z.object({
  id: z.string().regex(/^[a-z-]{1,40}$/),
  title: text,
  /** One sentence naming the figures: the chart's accessible name and the line above it. */
  summary: text,
  kind: z.enum(['bar', 'line']),
  unit: z.enum(['usd', 'tokens', 'ms', 'percent', 'count']),
  /** `label` names the point (a story, a loop, a time); `value` in the unit. */
  points: z.array(z.object({ label: text, value: z.number().finite() })).max(DASHBOARD_LIMITS.points),
  /** The table view: its header and its rows, already formatted. */
  columns: z.array(text).max(20),
  rows: z.array(z.array(text).max(20)).max(DASHBOARD_LIMITS.points),
  /** Said under the table, e.g. that each row stands for several iterations. */
  note: text.optional(),
});
export type ChartData = z.infer<typeof chartSchema>;

export const dashboardHostMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('stats'),
    /** The workspace folder's name. */
    folder: text,
    filter: dashboardFilterSchema,
    features: z.array(z.object({ name: text, runs: z.number().int().nonnegative() })).max(DASHBOARD_LIMITS.features),
    /** One line: runs, success, cost, tokens. */
    headline: text,
    /** runs.jsonl lines that are not runs (skipped). */
    skipped: z.number().int().nonnegative(),
    charts: z.array(chartSchema).max(20),
  }),
  z.object({ type: z.literal('empty'), message: text }),
]);
export type DashboardHostMessage = z.infer<typeof dashboardHostMessageSchema>;

export const dashboardPageMessageSchema = z.discriminatedUnion('type', [z.object({ type: z.literal('ready') }), z.object({ type: z.literal('filter'), filter: dashboardFilterSchema })]);
export type DashboardPageMessage = z.infer<typeof dashboardPageMessageSchema>;

/** Validates a message from the page (on the host). */
export function parseDashboardPageMessage(data: unknown): Parsed<DashboardPageMessage> {
  return parseWith(dashboardPageMessageSchema, data);
}

/** Validates a message from the host (in the page). */
export function parseDashboardHostMessage(data: unknown): Parsed<DashboardHostMessage> {
  return parseWith(dashboardHostMessageSchema, data);
}
