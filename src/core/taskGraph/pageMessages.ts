/**
 * Every message the host posts to the task-graph page is built here (the graph itself in
 * message.ts, through `pageNode` and `pageProblems`), and each one satisfies the page's schema
 * whatever prd.json, runs.jsonl or an issue comment holds: text is clamped and lists elided to
 * PAGE_LIMITS, and the picture says so (`… (150,000 characters)`, `… 3,800 more`). A message the
 * page refused would leave it blank or frozen; a property test sends hostile workspaces through
 * these builders and the page's `parseHostMessage`.
 *
 * Ids are keys: the page names stories by them in what it posts back. An id over the limit gets
 * a key that is stable (from the id's text) and unique in practice (its length and a hash of the
 * whole id); `PageKeys` turns a key the page posts back into the story's id.
 */
import { type ArtifactBadgeDto, type GraphNodeDto, type HostMessage, PAGE_LIMITS, type RunMessage } from '../webview/graphProtocol';
import type { Problem } from '../prd/problems';

const count = (n: number): string => n.toLocaleString('en-US');

/** The text, or its start and its full length when it is longer than `max`. */
export function clampText(s: string, max: number): string {
  if (s.length <= max) {
    return s;
  }
  const tail = `… (${count(s.length)} characters)`;
  let cut = Math.max(0, max - tail.length);
  // never split a surrogate pair
  if (cut > 0 && /[\uD800-\uDBFF]/.test(s[cut - 1])) {
    cut--;
  }
  return `${s.slice(0, cut)}${tail}`;
}

/** At most `max` items: the first ones and, last, what `more` says of the rest (`… 3,800 more`). */
export function elide<T>(xs: readonly T[], max: number, more: (hidden: number) => T): T[] {
  return xs.length <= max ? [...xs] : [...xs.slice(0, max - 1), more(xs.length - max + 1)];
}

const moreText = (hidden: number): string => `… ${count(hidden)} more`;

/** FNV-1a over the UTF-16 code units: a short, stable fingerprint of a long id. */
function fingerprint(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** The key the page knows a story by: its id, or for an id over the limit its start, length and fingerprint. */
export function pageKey(id: string): string {
  if (id.length <= PAGE_LIMITS.id) {
    return id;
  }
  return `${id.slice(0, PAGE_LIMITS.id - 60)}… (${count(id.length)} characters, #${fingerprint(id)})`;
}

/** Turns the keys the page posts back into ids (only long ids have a key of their own). */
export class PageKeys {
  private readonly ids = new Map<string, string>();

  constructor(ids: Iterable<string>) {
    for (const id of ids) {
      if (id.length > PAGE_LIMITS.id) {
        this.ids.set(pageKey(id), id);
      }
    }
  }

  idOf(key: string): string {
    return this.ids.get(key) ?? key;
  }
}

const idFits = (id: string): boolean => id.length <= PAGE_LIMITS.id;

/** True when nothing of the node needs shortening (the usual case: the node is sent as it is). */
function nodeFits(n: GraphNodeDto): boolean {
  return (
    idFits(n.id) &&
    n.title.length <= PAGE_LIMITS.text &&
    n.blockedBy.length <= PAGE_LIMITS.dependencies &&
    n.blockedBy.every(idFits) &&
    n.unknownDependencies.length <= PAGE_LIMITS.dependencies &&
    n.unknownDependencies.every(idFits) &&
    n.badges.length === 0 &&
    (n.artifacts === undefined || (n.artifacts.warnings.length <= PAGE_LIMITS.warnings && n.artifacts.warnings.every((w) => w.length <= PAGE_LIMITS.warning)))
  );
}

/** A node as the page may receive it (after other features decorated it). */
export function pageNode(n: GraphNodeDto): GraphNodeDto {
  if (nodeFits(n)) {
    return n;
  }
  const title = clampText(n.title, PAGE_LIMITS.text);
  const out: GraphNodeDto = {
    ...n,
    id: pageKey(n.id),
    title,
    blockedBy: n.blockedBy.slice(0, PAGE_LIMITS.dependencies).map(pageKey),
    unknownDependencies: n.unknownDependencies.slice(0, PAGE_LIMITS.dependencies).map(pageKey),
    badges: n.badges.slice(0, PAGE_LIMITS.badges).map((b) => ({
      label: clampText(b.label, PAGE_LIMITS.badgeLabel),
      tooltip: b.tooltip === undefined ? undefined : clampText(b.tooltip, PAGE_LIMITS.badgeTooltip),
    })),
    artifacts: n.artifacts && pageArtifacts(n.artifacts),
  };
  if (title !== n.title) {
    out.titleTruncated = true;
  }
  return out;
}

function pageArtifacts(a: ArtifactBadgeDto): ArtifactBadgeDto {
  return { ...a, warnings: elide(a.warnings, PAGE_LIMITS.warnings, moreText).map((w) => clampText(w, PAGE_LIMITS.warning)), remote: a.remote && { kind: a.remote.kind, label: clampText(a.remote.label, PAGE_LIMITS.outcome) } };
}

/** The problems a graph message carries (the first 50: a line each in the picture). */
export function pageProblems(problems: readonly Problem[]): Extract<HostMessage, { type: 'graph' }>['problems'] {
  return problems.slice(0, 50).map((p) => ({
    message: clampText(p.message, PAGE_LIMITS.text),
    line: p.range.start.line + 1,
    column: p.range.start.character + 1,
    storyId: p.storyId === undefined ? undefined : pageKey(p.storyId),
  }));
}

export function pageSource(source: string): string {
  return clampText(source, PAGE_LIMITS.source);
}

/**
 * A story's long text for the detail pane, answering the page's request `answers`; what had to be
 * shortened is named in `truncated` (the pane does not edit it).
 */
export function detailsMessage(answers: number, story: { readonly id: string; readonly description: string; readonly acceptanceCriteria: readonly string[] }): HostMessage {
  const description = clampText(story.description, PAGE_LIMITS.text);
  // criteria are clamped to what the page may post back, so an untruncated list round-trips
  const acceptanceCriteria = elide(story.acceptanceCriteria, PAGE_LIMITS.criteria, moreText).map((c) => clampText(c, PAGE_LIMITS.criterion));
  const truncated: ('description' | 'acceptanceCriteria')[] = [];
  if (description !== story.description) {
    truncated.push('description');
  }
  if (acceptanceCriteria.length !== story.acceptanceCriteria.length || acceptanceCriteria.some((c, i) => c !== story.acceptanceCriteria[i])) {
    truncated.push('acceptanceCriteria');
  }
  const message: HostMessage = { type: 'details', answers, id: pageKey(story.id), description, acceptanceCriteria };
  return truncated.length > 0 ? { ...message, truncated } : message;
}

export function selectMessage(id: string): HostMessage {
  return { type: 'select', id: pageKey(id) };
}

/** The result of the page's request `answers`, for its status line. */
export function noticeMessage(answers: number, level: 'info' | 'error', message: string, cycle?: readonly string[]): HostMessage {
  return { type: 'notice', answers, level, message: clampText(message, PAGE_LIMITS.message), cycle: cycle?.map(pageKey) };
}

export function emptyMessage(message: string): HostMessage {
  return { type: 'empty', message: clampText(message, PAGE_LIMITS.message) };
}

/** A story an agent works on now, as the host knows it (the page gets it by key, within its limits). */
export interface RunningStory {
  readonly storyId: string;
  readonly iteration?: number;
  readonly maxIterations?: number;
  readonly startedAt?: number;
  readonly resumesAt?: number;
}

/** A count the page accepts (a whole number, not negative), else unknown. */
const wholeOrUndefined = (n: number | undefined): number | undefined => (n !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined);

/**
 * The run status: every story an agent works on now (the serial run's and each parallel story's:
 * each once, the first mention kept; beyond PAGE_LIMITS.running they are counted in `more`), and
 * the last outcome of each story, by key.
 */
export function runMessage(
  state: { readonly running: boolean; readonly stories?: readonly RunningStory[]; readonly waits?: readonly { readonly storyId: string; readonly short: string; readonly text: string }[] },
  lastOutcome: ReadonlyMap<string, string>,
): RunMessage {
  const outcomes: [string, string][] = [];
  for (const [id, outcome] of lastOutcome) {
    outcomes.push([pageKey(id), clampText(outcome, PAGE_LIMITS.outcome)]);
  }
  // A Map keeps the order of first insertion: beyond the limit the stories that ran first go.
  outcomes.splice(0, Math.max(0, outcomes.length - PAGE_LIMITS.outcomes));
  const seen = new Set<string>();
  const stories: RunMessage['stories'] = [];
  for (const r of state.stories ?? []) {
    if (seen.has(r.storyId)) {
      continue;
    }
    seen.add(r.storyId);
    stories.push({
      storyId: pageKey(r.storyId),
      iteration: wholeOrUndefined(r.iteration),
      maxIterations: wholeOrUndefined(r.maxIterations),
      startedAt: r.startedAt !== undefined && Number.isFinite(r.startedAt) ? r.startedAt : undefined,
      ...(r.resumesAt !== undefined && Number.isFinite(r.resumesAt) ? { resumesAt: r.resumesAt } : {}),
    });
  }
  const more = stories.length - PAGE_LIMITS.running;
  const message: RunMessage = { type: 'run', running: state.running || stories.length > 0, stories: stories.slice(0, PAGE_LIMITS.running), lastOutcome: outcomes };
  if (state.waits && state.waits.length > 0) {
    // A running story does not wait; each story once, the first sentence kept.
    const waits = new Map<string, [string, string, string]>();
    for (const w of state.waits) {
      const key = pageKey(w.storyId);
      if (!seen.has(w.storyId) && !waits.has(key)) {
        waits.set(key, [key, clampText(w.short, PAGE_LIMITS.outcome), clampText(w.text, PAGE_LIMITS.outcome)]);
      }
    }
    message.waits = [...waits.values()].slice(0, PAGE_LIMITS.outcomes);
  }
  return more > 0 ? { ...message, more } : message;
}
