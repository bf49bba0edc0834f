/**
 * A story as a GitHub issue (issue 20's Publish): the title, the body with its acceptance criteria
 * as a checklist and the hidden marker that finds the issue again, the labels that say its state,
 * and the feature's parent issues. Pure: the publisher (src/node/github/publish.ts) sends these.
 *
 * The marker is the last line of a body we write: `<!-- ralph-workbench:story <id> -->`, the id
 * percent-encoded so that no id can end the comment early or look like another marker. Who may
 * make an issue count as a story's is a rule, not a text match alone: only issues carrying the
 * `ralph` label are read for markers (GitHub drops labels from an issue opened by someone without
 * triage access to the repository), and the publisher lists issues by that label.
 */

/** Labels we own: `ralph` on every issue we publish, and exactly one state label on each story's. */
export const RALPH_LABEL = 'ralph';
export const STATE_LABELS = { ready: 'ralph:ready', blocked: 'ralph:blocked', done: 'ralph:done' } as const;
export type StoryIssueState = keyof typeof STATE_LABELS;

/** What GitHub takes: the label colours and descriptions we create when a label is missing. */
export const LABEL_SPECS: readonly { readonly name: string; readonly color: string; readonly description: string }[] = [
  { name: RALPH_LABEL, color: '5319e7', description: 'A story published by Ralph Workbench' },
  { name: STATE_LABELS.ready, color: '0e8a16', description: 'Ralph: every story it waits on passes' },
  { name: STATE_LABELS.blocked, color: 'fbca04', description: 'Ralph: waits on a story that does not pass yet' },
  { name: STATE_LABELS.done, color: '1d76db', description: 'Ralph: the story passes' },
];

/** GitHub's limits: a title of 256 characters, a body of 65,536. */
export const TITLE_LIMIT = 256;
export const BODY_LIMIT = 65_536;
/** GitHub's limit of sub-issues per parent. */
export const SUB_ISSUES_PER_PARENT = 100;

const STORY_MARKER = /<!-- ralph-workbench:story ([A-Za-z0-9%._~!*'()-]{1,2000})(?: feature ([A-Za-z0-9%._~!*'()-]{1,2000}))? -->\s*$/;
const FEATURE_MARKER = /<!-- ralph-workbench:feature ([A-Za-z0-9%._~!*'()-]{1,2000})(?: part (\d{1,4}))? -->\s*$/;

/** The marker of a story's issue: its id and its feature (two features may both have a US-001). */
export function storyMarker(storyId: string, feature?: string): string {
  return `<!-- ralph-workbench:story ${encodeURIComponent(storyId)}${feature ? ` feature ${encodeURIComponent(feature)}` : ''} -->`;
}

export function featureMarker(branch: string, part: number): string {
  return `<!-- ralph-workbench:feature ${encodeURIComponent(branch)}${part > 1 ? ` part ${part}` : ''} -->`;
}

function decode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** The story id of a body we wrote (its last line), else undefined. */
export function storyIdOfBody(body: string): string | undefined {
  return storyMarkerOfBody(body)?.storyId;
}

/** The story id and feature of a body we wrote (its last line); the feature is absent in a marker without one. */
export function storyMarkerOfBody(body: string): { readonly storyId: string; readonly feature?: string } | undefined {
  const m = STORY_MARKER.exec(body);
  const storyId = m ? decode(m[1]) : undefined;
  if (!m || storyId === undefined) {
    return undefined;
  }
  const feature = m[2] !== undefined ? decode(m[2]) : undefined;
  return feature === undefined ? { storyId } : { storyId, feature };
}

/** The feature branch and part (1 for the first parent) of a parent issue's body, else undefined. */
export function featureOfBody(body: string): { readonly branch: string; readonly part: number } | undefined {
  const m = FEATURE_MARKER.exec(body);
  const branch = m ? decode(m[1]) : undefined;
  return m && branch !== undefined ? { branch, part: m[2] ? Number(m[2]) : 1 } : undefined;
}

/** The story fields an issue shows. */
export interface StoryForIssue {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly acceptanceCriteria: readonly string[];
  readonly passes: boolean;
}

/** What the issue of a story should say. */
export interface IssueContent {
  readonly title: string;
  readonly body: string;
  readonly state: 'open' | 'closed';
  readonly stateLabel: string;
}

/**
 * The issue of a story. `blockedByNumbers` is given only where GitHub has no dependencies API (the
 * body then lists "Blocked by #n" instead); `feature` names the branch in the footer.
 */
export function storyIssueContent(story: StoryForIssue, state: StoryIssueState, feature: string, blockedByNumbers?: readonly number[]): IssueContent {
  const title = clamp(`${story.id}: ${story.title}`.replace(/\s+/g, ' ').trim(), TITLE_LIMIT);
  const parts: string[] = [];
  if (story.description.trim() !== '') {
    parts.push(story.description.trim());
  }
  if (story.acceptanceCriteria.length > 0) {
    parts.push(['## Acceptance criteria', ...story.acceptanceCriteria.map((c) => `- [${story.passes ? 'x' : ' '}] ${c.replace(/\s*\r?\n\s*/g, ' ').trim()}`)].join('\n'));
  }
  if (blockedByNumbers && blockedByNumbers.length > 0) {
    parts.push(`Blocked by ${blockedByNumbers.map((n) => `#${n}`).join(', ')}`);
  }
  const footer = [`<sub>Published by Ralph Workbench from prd.json (feature \`${feature.replace(/`/g, "'")}\`). Change the story in prd.json: the next publish replaces this text.</sub>`, storyMarker(story.id, feature)].join('\n');
  return { title, body: fitBody(parts.join('\n\n'), footer), state: story.passes ? 'closed' : 'open', stateLabel: STATE_LABELS[state] };
}

/** A feature's parent issue: part 1 lists the other parts (one per 100 stories). */
export function featureIssueContent(feature: string, part: number, counts: { readonly stories: number; readonly parts: readonly number[] }): { title: string; body: string } {
  const title = clamp(`${feature}${part > 1 ? ` (part ${part})` : ''}: stories published by Ralph Workbench`, TITLE_LIMIT);
  const lines = [`The stories of the feature branch \`${feature.replace(/`/g, "'")}\`, as sub-issues${part > 1 ? ` (part ${part})` : ''}. Each story's "blocked by" dependencies come from its \`blockedBy\` in prd.json.`];
  if (part === 1 && counts.parts.length > 0) {
    lines.push('', `GitHub holds ${SUB_ISSUES_PER_PARENT} sub-issues per issue; the other ${counts.stories.toLocaleString('en-US')} stories' parts:`, ...counts.parts.map((n) => `- #${n}`));
  }
  return { title, body: [...lines, '', featureMarker(feature, part)].join('\n') };
}

/** The labels an issue should carry: its own labels, ours replaced (`ralph` and the one state label). */
export function labelsFor(current: readonly string[], stateLabel: string): string[] {
  const ours = new Set<string>(Object.values(STATE_LABELS));
  const kept = current.filter((l) => l !== RALPH_LABEL && !ours.has(l));
  return [...kept, RALPH_LABEL, stateLabel];
}

/** The same labels, in any order. */
export function sameLabels(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((l) => y.has(l));
}

function clamp(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** The body within GitHub's limit, the footer (and its marker) always whole. */
function fitBody(main: string, footer: string): string {
  const room = BODY_LIMIT - footer.length - 2;
  const text = main.length > room ? `${main.slice(0, room - 80)}\n\n… (${(main.length - room + 80).toLocaleString('en-US')} more characters in prd.json)` : main;
  return text === '' ? footer : `${text}\n\n${footer}`;
}
