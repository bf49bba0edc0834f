/**
 * A failure signature as a GitHub issue (issue 21): when a story fails twice in a row with the
 * same signature, the user may open an issue about it (or, when one with its label is open, add a
 * comment there). Pure: src/node/github/signatureIssue.ts files it through the client.
 *
 * Everything here comes from an agent's output, so it is text, never markdown that acts: the
 * signature and the error lines stand in fenced blocks whose fence is longer than any backtick
 * run inside (nothing in them can close the block early, and code mentions nobody), the story id
 * in a code span built the same way, and the title, which GitHub does not render as markdown but
 * still reads for mentions and references, gets a zero-width space after every `@`, `#` and `GH-`
 * so that it pings nobody and links no issue.
 */
import { TITLE_LIMIT } from './storyIssue';

/** The label that finds a signature's issue again: the prefix and a short hash of the signature (the node side computes it). */
export const SIGNATURE_LABEL_PREFIX = 'ralph-signature:';

export interface SignatureReport {
  readonly storyId: string;
  readonly signature: string;
  /** How many times in a row the story failed with it (runs.jsonl). */
  readonly count: number;
  /** The last run's error lines as printed (runs.jsonl `errorLines`); may be empty. */
  readonly errorLines: readonly string[];
  /** `ralph-signature:<short hash>`. */
  readonly label: string;
}

const ZWSP = '\u200b';
/** A story id in the prose is cut to this (runs.jsonl reads it back unbounded). */
const MAX_ID = 200;

/** Control characters other than tab and line feed: dropped from what is shown (a terminal's bell, NUL, escapes). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** Text that mentions nobody and references no issue where GitHub reads plain text (a title). */
export function inertText(s: string): string {
  return s.replace(/([@#])/g, `$1${ZWSP}`).replace(/\b(gh-)(?=\d)/gi, `$1${ZWSP}`);
}

/** The longest run of backticks in `text`. */
function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) {
    longest = Math.max(longest, m[0].length);
  }
  return longest;
}

/** `text` as a fenced code block's content and its fence: at least three backticks, and more than any run inside. */
export function codeFence(text: string): { fence: string; content: string } {
  const content = text.replace(/\r\n?/g, '\n').replace(CONTROL, '');
  return { fence: '`'.repeat(Math.max(3, longestBacktickRun(content) + 1)), content };
}

/** A fenced block holding `text` exactly (no info string: the text says nothing about how it is drawn). */
function fenced(text: string): string {
  const { fence, content } = codeFence(text);
  return `${fence}\n${content}\n${fence}`;
}

/** A code span holding `text` on one line: its backtick string longer than any run inside, padded where the text starts or ends with a backtick or a space. */
function codeSpan(text: string): string {
  const one = text.replace(/\s+/g, ' ').replace(CONTROL, '').slice(0, MAX_ID);
  const ticks = '`'.repeat(longestBacktickRun(one) + 1);
  const pad = /^[` ]|[` ]$/.test(one) ? ' ' : '';
  return `${ticks}${pad}${one}${pad}${ticks}`;
}

/** "Ralph: US-006 fails with: <signature>", one line, inert, within GitHub's 256 characters. */
export function signatureIssueTitle(r: SignatureReport): string {
  const title = inertText(`Ralph: ${r.storyId} fails with: ${r.signature}`.replace(CONTROL, '').replace(/\s+/g, ' ').trim());
  return title.length > TITLE_LIMIT ? `${title.slice(0, TITLE_LIMIT - 1)}…` : title;
}

/** The signature and the error lines, each in its own block (the lines left out when none were recorded). */
function blocks(r: SignatureReport): string[] {
  // Each line's own line breaks normalised before the join: a line ending in "\r" stays a line of its own.
  const lines = r.errorLines.map((l) => l.replace(/\r\n?/g, '\n')).join('\n');
  return [
    'Failure signature (numbers, paths, hashes, times and quoted names replaced):',
    fenced(r.signature),
    ...(codeFence(lines).content.trim() === '' ? ['No error lines were recorded for the last run.'] : ['The last error lines of the last run, as printed:', fenced(lines)]),
  ];
}

/** The new issue's body. */
export function signatureIssueBody(r: SignatureReport): string {
  return [
    `Story ${codeSpan(r.storyId)} failed ${r.count} times in a row with the same failure signature (seen by Ralph Workbench).`,
    ...blocks(r),
    `<sub>Opened from Ralph Workbench. The label \`${r.label.replace(/`/g, '')}\` finds this issue again: while it is open, the same signature repeating is added here as a comment.</sub>`,
  ].join('\n\n');
}

/** The comment on the open issue of the same signature. */
export function signatureCommentBody(r: SignatureReport): string {
  return [`Failed again: ${codeSpan(r.storyId)}, ${r.count} times in a row with this signature.`, ...blocks(r)].join('\n\n');
}
