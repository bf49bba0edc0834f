/**
 * How a story is described to a person: its display status, one-line description and markdown
 * tooltip. Pure, so the tree, the CLI and tests agree on the words.
 */
import { STORY_STATES, type StoryStateKey } from '../vocabulary';
import type { Problem } from './problems';
import type { StoryState } from './readiness';

/** A story's state as the tree shows it (running and stale are decided by the view). */
export type DisplayStatus = Extract<StoryStateKey, 'next' | 'ready' | 'blocked' | 'done' | 'invalid' | 'cycle'>;

export interface StoryPresentation {
  readonly status: DisplayStatus;
  readonly label: string;
  readonly description: string;
  readonly tooltip: string;
  /** Tokens for a VS Code contextValue, e.g. "story ready pending". */
  readonly contextValue: string;
}

/** A story on a cycle is named so first, as the task graph names it; then its own errors. */
export function displayStatus(state: StoryState, problems: readonly Problem[]): DisplayStatus {
  if (state.inCycle) {
    return 'cycle';
  }
  if (problems.some((p) => p.severity === 'error')) {
    return 'invalid';
  }
  if (state.status === 'done') {
    return 'done';
  }
  if (state.status === 'blocked') {
    return 'blocked';
  }
  return state.isNext ? 'next' : 'ready';
}

export function storyLabel(state: StoryState): string {
  const s = state.story;
  const id = s.id || `Story #${s.index + 1}`;
  return s.title ? `${id}: ${s.title}` : id;
}

export function presentStory(state: StoryState, problems: readonly Problem[], titleOf: (id: string) => string | undefined): StoryPresentation {
  const status = displayStatus(state, problems);
  const s = state.story;
  const priority = Number.isFinite(s.priority) ? `P${s.priority}` : 'P?';
  let detail: string;
  const words = STORY_STATES[status];
  switch (status) {
    case 'blocked':
      detail = `${words.word} by ${state.waitingOn.join(', ')}`;
      break;
    case 'invalid':
      detail = `${words.word}: ${shortProblem(problems[0])}`;
      break;
    case 'cycle':
      detail = words.spoken;
      break;
    default:
      detail = words.word;
  }
  const md: string[] = [`**${escapeMd(storyLabel(state))}**`, '', `${statusSentence(status, state)} · priority ${Number.isFinite(s.priority) ? s.priority : 'not set'}`];
  for (const p of problems) {
    md.push('', `$(error) ${escapeMd(p.message)}`);
  }
  if (s.description) {
    md.push('', escapeMd(s.description));
  }
  if (s.acceptanceCriteria.length > 0) {
    md.push('', '**Acceptance criteria**', '');
    for (const c of s.acceptanceCriteria) {
      md.push(`- ${escapeMd(c)}`);
    }
  }
  if (s.blockedBy.length > 0) {
    md.push('', `**Blocked by:** ${s.blockedBy.map((r) => formatRef(r.id, titleOf, state.waitingOn.includes(r.id))).join(', ')}`);
  }
  if (state.blocks.length > 0) {
    md.push('', `**Blocks:** ${state.blocks.map(escapeMd).join(', ')}`);
  }
  if (s.notes) {
    md.push('', `**Notes:** ${escapeMd(s.notes)}`);
  }
  const tokens = ['story', status];
  if (!s.passes) {
    tokens.push('pending');
  }
  return { status, label: storyLabel(state), description: `${priority} · ${detail}`, tooltip: md.join('\n'), contextValue: tokens.join(' ') };
}

function statusSentence(status: DisplayStatus, state: StoryState): string {
  const icon = `$(${STORY_STATES[status].codicon})`;
  switch (status) {
    case 'next':
      return `${icon} Next to run`;
    case 'blocked':
      return `${icon} Waiting on ${state.waitingOn.join(', ')}`;
    case 'cycle':
      return `${icon} ${capitalized(STORY_STATES.cycle.spoken)}`;
    default:
      return `${icon} ${capitalized(STORY_STATES[status].word)}`;
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function formatRef(id: string, titleOf: (id: string) => string | undefined, waiting: boolean): string {
  const title = titleOf(id);
  const mark = waiting ? '' : ' ✓';
  return title === undefined ? `${escapeMd(id)} (unknown)` : `${escapeMd(id)}${mark}`;
}

function shortProblem(p: Problem | undefined): string {
  if (!p) {
    return 'see Problems';
  }
  switch (p.code) {
    case 'cycle':
      return 'dependency cycle';
    case 'self-dependency':
      return 'blocked by itself';
    case 'unknown-blocked-by':
      return 'unknown blockedBy id';
    case 'duplicate-id':
      return 'duplicate id';
    default:
      return 'schema problem';
  }
}

/** Escapes markdown syntax characters in user text (MarkdownString with supportThemeIcons). */
export function escapeMd(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>$~]/g, (c) => `\\${c}`);
}
