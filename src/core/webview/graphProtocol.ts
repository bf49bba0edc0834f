/**
 * The one protocol between the extension host and the task-graph page, declared once for both
 * sides. Every message is validated with zod on arrival (host: `parsePageMessage`, page:
 * `parseHostMessage`); a malformed one is rejected and logged, never applied.
 *
 * Handshake: the page posts `ready` once its script runs; the host answers with the latest `graph`
 * and `run` messages (and replays them whenever the view becomes visible again, because VS Code
 * drops messages posted to a hidden webview).
 *
 * Requests and answers: every page message but `ready` is a request with a `requestId` (1, 2, 3, …
 * from each load of the page), and every answer of the host (`details`, `notice`) names the request
 * it answers in `answers`. The other host messages (`graph`, `run`, `select`, `empty`) are state:
 * the latest is the truth. An answer can come late (the host was busy writing prd.json, the user
 * selected another story meanwhile): the page keeps the latest id of each kind of request
 * (`RequestIds`) and drops an answer to any other, and the host drops an answer for a page that was
 * disposed or reloaded since it asked (src/views/webviewHost.ts).
 */
import { z } from 'zod';

/**
 * What the page accepts. The host's message builders (src/core/taskGraph/pageMessages.ts) clamp
 * and elide to these limits, so a hostile prd.json or issue comment cannot get a message refused.
 */
export const PAGE_LIMITS = {
  id: 500,
  text: 100_000,
  message: 2_000,
  problems: 1_000,
  criteria: 1_000,
  /** One criterion as the page may post it back (`editStory`). */
  criterion: 10_000,
  dependencies: 10_000,
  badges: 10,
  badgeLabel: 20,
  badgeTooltip: 500,
  warnings: 20,
  warning: 500,
  outcome: 200,
  /** Stories with a last outcome in one run message (the most recent runs are kept). */
  outcomes: 100_000,
  /** Running stories marked in one run message (the rest are counted in `more`). */
  running: 100,
  source: 2_000,
} as const;

const id = z.string().max(PAGE_LIMITS.id);
const text = z.string().max(PAGE_LIMITS.text);

/** The id the page gives a request, and the id an answer names. */
export const requestIdSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
/** Every page message but `ready` carries one. */
const request = { requestId: requestIdSchema };
/** Every answer names the request it answers. */
const answer = { answers: requestIdSchema };

export const nodeStateSchema = z.enum(['done', 'ready', 'next', 'blocked', 'invalid']);

const artifactStatus = z.enum(['linked', 'on-disk', 'missing']);

/** The artifact status of a story's GitHub issue (research → plan → review → implementation). */
export const artifactBadgeSchema = z.object({
  issue: z.number().int().positive(),
  research: artifactStatus,
  plan: artifactStatus,
  /** A group plan that names the issue (absent when there is none): beside the issue's own plan. */
  groupPlan: artifactStatus.optional(),
  review: artifactStatus,
  implementation: artifactStatus,
  verdict: z.enum(['APPROVED', 'NEEDS_ITERATION']).optional(),
  /** Missing prerequisites (a plan without research, …): the badge turns to the warning colour. */
  warnings: z.array(z.string().max(PAGE_LIMITS.warning)).max(PAGE_LIMITS.warnings),
  /** Where the published story stands on GitHub (issue 20): "PR #12 open", "run in progress", … */
  remote: z
    .object({
      kind: z.enum(['pull-merged', 'pull-open', 'running', 'queued', 'run-failed', 'run-passed', 'issue-closed', 'issue-open']),
      label: z.string().max(PAGE_LIMITS.outcome),
    })
    .optional(),
});
export type ArtifactBadgeDto = z.infer<typeof artifactBadgeSchema>;

export const graphNodeSchema = z.object({
  id,
  title: text,
  /** True when the title was shortened for the page (the detail pane does not offer to edit it). */
  titleTruncated: z.boolean().optional(),
  state: nodeStateSchema,
  wave: z.number().int().nonnegative().nullable(),
  priority: z.number().nullable(),
  critical: z.boolean(),
  inCycle: z.boolean(),
  unblocks: z.object({ direct: z.number().int().nonnegative(), total: z.number().int().nonnegative() }),
  /** Ids of the stories it waits on (known or not), in file order. */
  blockedBy: z.array(id).max(PAGE_LIMITS.dependencies),
  unknownDependencies: z.array(id).max(PAGE_LIMITS.dependencies),
  /** Small marks from other features (GitHub artifact pips). */
  badges: z.array(z.object({ label: z.string().max(PAGE_LIMITS.badgeLabel), tooltip: z.string().max(PAGE_LIMITS.badgeTooltip).optional() })).max(PAGE_LIMITS.badges),
  /** The story's GitHub issue and its artifacts (absent when the story has no issue). */
  artifacts: artifactBadgeSchema.optional(),
});
export type GraphNodeDto = z.infer<typeof graphNodeSchema>;

export const layoutSchema = z.object({
  /** Bumped on every topology or direction change; a status-only update keeps it (and sends no layout). */
  id: z.number().int(),
  direction: z.enum(['LR', 'TB']),
  nodeWidth: z.number(),
  nodeHeight: z.number(),
  width: z.number(),
  height: z.number(),
  /** Top-left corner of each node, by node index. */
  x: z.array(z.number()),
  y: z.array(z.number()),
  /** Bend points of each edge (same order as `edges`), flattened [x0, y0, x1, y1, …]. */
  bends: z.array(z.array(z.number())),
});
export type LayoutDto = z.infer<typeof layoutSchema>;

export const problemSchema = z.object({ message: text, line: z.number().int(), column: z.number().int(), storyId: id.optional() });

export const graphMessageSchema = z.object({
  type: z.literal('graph'),
  /** The prd.json this is about, relative to the workspace (for the header). */
  source: z.string().max(PAGE_LIMITS.source),
  /** How many workspace folders have a prd.json (above 1 the page offers "Choose prd.json…"). */
  sources: z.number().int().nonnegative().optional(),
  /** True when prd.json cannot be read right now and this is the last good picture. */
  stale: z.boolean(),
  /** Why the picture is stale, or graph problems (cycles, unknown ids) worth a line. */
  problems: z.array(problemSchema).max(PAGE_LIMITS.problems),
  nodes: z.array(graphNodeSchema),
  /** [blocker, blocked, flags] with flags 1 = in a cycle, 2 = on the critical path. */
  edges: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative(), z.number().int().nonnegative()])),
  waves: z.array(z.array(z.number().int().nonnegative())),
  unschedulable: z.array(z.number().int().nonnegative()),
  criticalPath: z.array(z.number().int().nonnegative()),
  layoutId: z.number().int(),
  /** Present when the layout changed; absent for a status-only update (the page keeps its layout). */
  layout: layoutSchema.optional(),
});
export type GraphMessage = z.infer<typeof graphMessageSchema>;

/** One story an agent works on now: the serial run's, or one of a parallel run's (issue 19). */
export const runningStorySchema = z.object({
  storyId: id,
  /** i of i/N; absent while the run is still starting. */
  iteration: z.number().int().nonnegative().optional(),
  maxIterations: z.number().int().nonnegative().optional(),
  /** ms since the epoch; the page shows the elapsed time. */
  startedAt: z.number().optional(),
  /** While the run waits out its agent's usage or rate limit: when it resumes (ms since the epoch); the page counts down to it. */
  resumesAt: z.number().optional(),
});
export type RunningStoryDto = z.infer<typeof runningStorySchema>;

export const runMessageSchema = z.object({
  type: z.literal('run'),
  /** A run is under way in the graph's folder (it may not have picked its story yet). */
  running: z.boolean(),
  /** Every story an agent works on now, each once: each gets its own mark (i/N, elapsed, its terminal). */
  stories: z.array(runningStorySchema).max(PAGE_LIMITS.running),
  /** How many more stories run than `stories` holds (counted in the status line, not marked). */
  more: z.number().int().positive().optional(),
  /**
   * The last recorded outcome of each story that ran, as [story id, outcome] pairs ("passed",
   * "failed", …). Pairs, not a record: a record keyed by story id loses `__proto__` (zod drops it)
   * and answers `constructor` with Object's. Read it through `outcomesOf`.
   */
  lastOutcome: z.array(z.tuple([id, z.string().max(PAGE_LIMITS.outcome)])).max(PAGE_LIMITS.outcomes),
  /**
   * Why each ready story a parallel run has not started waits, as [story id, a few words, the
   * sentence] ("waits for US-004", "waits for US-004: both change src/api/tasks.ts"); absent
   * when no parallel run is under way.
   */
  waits: z.array(z.tuple([id, z.string().max(PAGE_LIMITS.outcome), z.string().max(PAGE_LIMITS.outcome)])).max(PAGE_LIMITS.outcomes).optional(),
});
export type RunMessage = z.infer<typeof runMessageSchema>;

/** A run message's last outcome by story id. */
export function outcomesOf(run: Pick<RunMessage, 'lastOutcome'>): ReadonlyMap<string, string> {
  return new Map(run.lastOutcome);
}

/** Why a story waits: a few words for a narrow row, and the whole sentence. */
export interface StoryWait {
  readonly short: string;
  readonly text: string;
}

/** A countdown as a clock shows it (the graph mark's and the status bar's): "12:34", "1:02:03" (0 once passed). */
export function countdown(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const two = (n: number): string => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

/** A run message's waits by story id. */
export function waitsOf(run: Pick<RunMessage, 'waits'>): ReadonlyMap<string, StoryWait> {
  return new Map((run.waits ?? []).map(([storyId, short, text]) => [storyId, { short, text }]));
}

export const hostMessageSchema = z.discriminatedUnion('type', [
  graphMessageSchema,
  runMessageSchema,
  z.object({ type: z.literal('empty'), message: z.string().max(PAGE_LIMITS.message) }),
  /** Select a story (it was selected in the Stories view). */
  z.object({ type: z.literal('select'), id }),
  /**
   * The long text of one story, for the detail pane (asked for with the page's `details`): graph
   * messages carry what the picture shows, so a change costs bytes in proportion to the picture.
   */
  z.object({
    type: z.literal('details'),
    ...answer,
    id,
    description: text,
    acceptanceCriteria: z.array(text).max(PAGE_LIMITS.criteria),
    /** Fields shortened for the page (too long, too many criteria): shown, not offered for editing. */
    truncated: z.array(z.enum(['description', 'acceptanceCriteria'])).optional(),
  }),
  /** A result the page shows in its status line; `cycle` names the stories of a refused edge's cycle. */
  z.object({ type: z.literal('notice'), ...answer, level: z.enum(['info', 'error']), message: z.string().max(PAGE_LIMITS.message), cycle: z.array(id).optional() }),
]);
export type HostMessage = z.infer<typeof hostMessageSchema>;

export const editableFieldSchema = z.enum(['title', 'description', 'priority', 'acceptanceCriteria']);
export type EditableField = z.infer<typeof editableFieldSchema>;

export const pageMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** The user selected a story in the graph: reveal it in the Stories view. */
  z.object({ type: z.literal('select'), ...request, id }),
  /** Open prd.json at the story. */
  z.object({ type: z.literal('open'), ...request, id }),
  /** Asks the host to let the user choose which folder's prd.json the graph shows (multi-root). */
  z.object({ type: z.literal('pickFolder'), ...request }),
  /** Asks for a story's description and acceptance criteria (the host answers with `details`). */
  z.object({ type: z.literal('details'), ...request, id }),
  /** Shows an agent's terminal: the running story `id`'s (its mark), else the serial run's. */
  z.object({ type: z.literal('showTerminal'), ...request, id: id.optional() }),
  z.object({ type: z.literal('copy'), ...request, format: z.enum(['text', 'mermaid']) }),
  z.object({ type: z.literal('openInEditor'), ...request }),
  z.object({ type: z.literal('setDirection'), ...request, direction: z.enum(['LR', 'TB']) }),
  z.object({ type: z.literal('addDependency'), ...request, story: id, blocker: id }),
  /** Asks the host for a quick pick of blockers to add to the story. */
  z.object({ type: z.literal('pickBlocker'), ...request, story: id }),
  z.object({ type: z.literal('removeDependency'), ...request, story: id, blocker: id }),
  z.object({
    type: z.literal('editStory'),
    ...request,
    story: id,
    field: editableFieldSchema,
    value: z.union([z.string().max(PAGE_LIMITS.text), z.number(), z.array(z.string().max(PAGE_LIMITS.criterion)).max(PAGE_LIMITS.criteria)]),
  }),
  z.object({ type: z.literal('addStory'), ...request, title: z.string().min(1).max(1_000), blockedBy: z.array(id).max(1_000).optional() }),
]);
export type PageMessage = z.infer<typeof pageMessageSchema>;
/** A request as the page's code writes it: the id is added when it is posted. */
export type PageRequest = PageMessage extends infer M ? (M extends { requestId: number } ? Omit<M, 'requestId'> : never) : never;

/**
 * The page's side of the request-id rule. Ids grow with every request; the kind of a request is its
 * type (`details`, `editStory`, `copy`, …): a newer request of a kind makes every earlier one of
 * that kind stale, and an answer to a stale request (or to no request of this load) is dropped.
 */
export class RequestIds {
  private last = 0;
  /** The latest id of each kind (a handful of kinds: one entry each). */
  private readonly latest = new Map<string, number>();

  /** The id of a new request of `kind`. */
  next(kind: string): number {
    this.last += 1;
    this.latest.set(kind, this.last);
    return this.last;
  }

  /** True when an answer naming `answers` answers the latest request of its kind. */
  isCurrent(answers: number): boolean {
    return this.kindOf(answers) !== undefined;
  }

  /** The kind of the request an answer names, when it is the latest of its kind (else undefined). */
  kindOf(answers: number): string | undefined {
    for (const [kind, id] of this.latest) {
      if (id === answers) {
        return kind;
      }
    }
    return undefined;
  }
}

export type Parsed<T> = { ok: true; message: T } | { ok: false; error: string };

/** A message validated by `schema`, or what is wrong with it (the first issue, with its path). */
export function parseWith<T>(schema: z.ZodType<T>, data: unknown): Parsed<T> {
  const r = schema.safeParse(data);
  if (r.success) {
    return { ok: true, message: r.data };
  }
  const issue = r.error.issues[0];
  const type = typeof data === 'object' && data !== null && 'type' in data ? String((data as { type: unknown }).type).slice(0, 40) : typeof data;
  return { ok: false, error: `malformed ${type} message: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}` };
}

/** Validates a message from the page (on the host). */
export function parsePageMessage(data: unknown): Parsed<PageMessage> {
  return parseWith(pageMessageSchema, data);
}

/** Validates a message from the host (in the page). */
export function parseHostMessage(data: unknown): Parsed<HostMessage> {
  return parseWith(hostMessageSchema, data);
}

/** What the page keeps with setState across hiding and reloads. */
export const viewStateSchema = z.object({
  zoom: z.number().min(0.02).max(8),
  panX: z.number(),
  panY: z.number(),
  selected: id.optional(),
  hideDone: z.boolean(),
  focus: z.boolean(),
  search: z.string().max(200),
  direction: z.enum(['LR', 'TB']),
  /** The user zoomed or panned by hand since the last fit: a resize keeps their view instead of fitting again. */
  manual: z.boolean().optional(),
});
export type ViewState = z.infer<typeof viewStateSchema>;
