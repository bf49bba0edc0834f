/**
 * The prompt an iteration's agent receives: the Ralph iteration instructions for ONE story, then
 * that story, its acceptance criteria, the stories it depended on, the Codebase Patterns and the
 * most recent entries of progress.txt, and the Pin entries (specs/INDEX.md) whose keywords match
 * the story's words, each with the first lines of its linked spec.
 *
 * A user template (setting) may replace the instructions. Placeholders are `{{name}}`:
 *   sections  {{story}} {{acceptanceCriteria}} {{dependencies}} {{codebasePatterns}}
 *             {{recentProgress}} {{pin}} and {{context}} (all six, in that order)
 *   values    {{storyId}} {{storyTitle}} {{projectName}} {{branchName}} {{prdFile}}
 *             {{progressFile}} {{pinFile}} {{commitMessage}} {{completeSignal}}
 * A template that places none of the sections gets all of them appended; one that places some is
 * in full control. Unknown `{{…}}` are left as written (templates may contain Handlebars or Vue).
 * Substitution is one pass: story text containing `{{pin}}` stays literal.
 */
import { parsePin, matchPin, pinFormatNote, type PinMatch } from '../pin/format';
import type { Story } from '../prd/document';
import type { PrdAnalysis } from '../prd/index';
import { parseProgress, patternsText, recentEntriesText } from '../progress/parse';
import { type IssuePlanInput, issuePlanSection } from '../artifacts/promptSection';
import { COMPLETE_SIGNAL } from '../output';
import { featCommitSubject } from '../runs/runs';

export interface PromptFiles {
  /** Workspace-relative names used in the instructions (defaults prd.json, progress.txt, specs/INDEX.md). */
  readonly prd?: string;
  readonly progress?: string;
  readonly pin?: string;
}

export interface PromptInput {
  readonly prd: PrdAnalysis;
  readonly storyId: string;
  /** progress.txt text; undefined when the file does not exist. */
  readonly progressText?: string;
  /** specs/INDEX.md text; undefined when there is no Pin. */
  readonly pinText?: string;
  /** Reads a workspace-relative file (a spec the Pin links); undefined or a throw means missing (a thrown WorkspacePathError's message is shown). */
  readonly readFile?: (workspaceRelativePath: string) => string | undefined;
  /** The user's template text; undefined for the default Ralph instructions. */
  readonly template?: string;
  readonly files?: PromptFiles;
  /** How many progress entries to include (default 3). */
  readonly recentEntries?: number;
  /** How many lines of each linked spec (default 100). */
  readonly specLines?: number;
  /** At most this many Pin entries, best matches first (default 4). */
  readonly maxPinEntries?: number;
  /** The story's GitHub issue plan (path, first 100 lines) and research path, when there is one. */
  readonly issuePlan?: IssuePlanInput;
}

export class PromptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PromptError';
  }
}

export const SECTION_PLACEHOLDERS = ['story', 'acceptanceCriteria', 'dependencies', 'codebasePatterns', 'recentProgress', 'pin'] as const;
export const VALUE_PLACEHOLDERS = [
  'context',
  'storyId',
  'storyTitle',
  'projectName',
  'branchName',
  'prdFile',
  'progressFile',
  'pinFile',
  'commitMessage',
  'completeSignal',
] as const;
export type PromptPlaceholder = (typeof SECTION_PLACEHOLDERS)[number] | (typeof VALUE_PLACEHOLDERS)[number];

/** The line the story section starts with; scripts (and the test fake agent) find the story id by it. */
export const STORY_ID_LINE_PREFIX = 'Story ID: ';

export const DEFAULT_PROMPT_TEMPLATE = `# Ralph iteration: {{storyId}} — {{storyTitle}}

You are one iteration of an autonomous coding loop (Ralph). You start with no memory of earlier
iterations: what you need is in this prompt and on disk — \`{{prdFile}}\` (the stories),
\`{{progressFile}}\` (the log and its Codebase Patterns), the AGENTS.md files, the Pin
(\`{{pinFile}}\`) and the git history.

Work on exactly ONE story: **{{storyId}}**. Do not start any other story.

## What to do

1. Read the story, its acceptance criteria and the context below. The Codebase Patterns come first
   for a reason: follow them. Before writing new code, open the files the Pin entries list and
   extend what exists instead of inventing a parallel version.
2. Implement {{storyId}} so that every acceptance criterion holds. Keep the change focused and
   minimal; follow the existing code style.
3. Run the project's quality checks — typecheck, lint and tests, whichever the project has (see the
   Codebase Patterns, AGENTS.md and package.json). Do not commit failing code. If you cannot make
   the checks pass, leave \`"passes": false\`, write what you tried and learned to
   \`{{progressFile}}\`, and stop.
4. When the checks pass:
   - set \`"passes": true\` for {{storyId}} in \`{{prdFile}}\` and change nothing else in that file;
   - append an entry to \`{{progressFile}}\` in the format below (never rewrite earlier entries);
   - if you found a general, reusable pattern, add it to the \`## Codebase Patterns\` section at the
     top of \`{{progressFile}}\`;
   - add reusable learnings (conventions, gotchas, dependencies between files, how to test) to the
     nearest AGENTS.md of the folders you changed — not story-specific details;
   - commit all of it (code, \`{{prdFile}}\`, \`{{progressFile}}\`, AGENTS.md) in ONE commit with
     the message \`{{commitMessage}}\`.
5. Stop after this story. Only if every story in \`{{prdFile}}\` now has \`"passes": true\`, print
   {{completeSignal}} on a line of its own; otherwise do not print it.

Progress entry format (append at the end of \`{{progressFile}}\`):

\`\`\`
## YYYY-MM-DD HH:MM - {{storyId}}
- What was implemented
- Files changed: path/one.ts, path/two.ts
- **Learnings for future iterations:**
  - Patterns discovered ("this codebase does X like this")
  - Gotchas ("remember to update Z when changing W")
  - Useful context
---
\`\`\`

{{context}}
`;

/** The prompt for one story, as markdown. Throws PromptError when the story is not in prd.json. */
export function buildPrompt(input: PromptInput): string {
  const { prd } = input;
  if (!prd.doc.hasStories) {
    const first = prd.problems.find((p) => p.severity === 'error');
    throw new PromptError(`${input.files?.prd ?? 'prd.json'} cannot be read as a list of stories${first ? `: ${first.message}` : ''}.`);
  }
  const story = prd.doc.stories.find((s) => s.id === input.storyId);
  if (!story) {
    const ids = prd.doc.stories.map((s) => s.id).filter((id) => id !== '');
    const hint = ids.length > 0 ? ` Known ids: ${ids.slice(0, 12).join(', ')}${ids.length > 12 ? ', …' : ''}.` : '';
    throw new PromptError(`No story with id "${input.storyId}" in ${input.files?.prd ?? 'prd.json'}.${hint}`);
  }
  const files = { prd: input.files?.prd ?? 'prd.json', progress: input.files?.progress ?? 'progress.txt', pin: input.files?.pin ?? 'specs/INDEX.md' };
  const sections: Record<(typeof SECTION_PLACEHOLDERS)[number], string> = {
    story: storySection(story, prd),
    acceptanceCriteria: criteriaSection(story),
    dependencies: dependenciesSection(story, prd),
    codebasePatterns: patternsSection(input.progressText, files.progress),
    recentProgress: recentSection(input.progressText, files.progress, input.recentEntries ?? 3),
    pin: pinSection(story, input, files.pin),
  };
  const context = [...SECTION_PLACEHOLDERS.map((k) => sections[k]), ...(input.issuePlan ? [issuePlanSection(input.issuePlan)] : [])].join('\n\n');
  const values: Record<PromptPlaceholder, string> = {
    ...sections,
    context,
    storyId: story.id,
    storyTitle: oneLine(story.title),
    projectName: prd.doc.projectName ?? '',
    branchName: prd.doc.branchName ?? '',
    prdFile: files.prd,
    progressFile: files.progress,
    pinFile: files.pin,
    commitMessage: featCommitSubject(story.id, story.title),
    completeSignal: COMPLETE_SIGNAL,
  };
  let template = input.template ?? DEFAULT_PROMPT_TEMPLATE;
  const used = placeholdersIn(template);
  if (!used.has('context') && !SECTION_PLACEHOLDERS.some((s) => used.has(s))) {
    template = `${template.trimEnd()}\n\n{{context}}\n`;
  }
  const out = template.replace(/\{\{\s*([A-Za-z]+)\s*\}\}/g, (whole, name: string) => (name in values ? values[name as PromptPlaceholder] : whole));
  return `${out.replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

/** The `{{…}}` names of a template that are not placeholders (for a warning in the settings UI). */
export function unknownPromptPlaceholders(template: string): string[] {
  const known = new Set<string>([...SECTION_PLACEHOLDERS, ...VALUE_PLACEHOLDERS]);
  return [...placeholdersIn(template)].filter((n) => !known.has(n));
}

function placeholdersIn(template: string): Set<string> {
  return new Set([...template.matchAll(/\{\{\s*([A-Za-z]+)\s*\}\}/g)].map((m) => m[1]));
}

function storySection(story: Story, prd: PrdAnalysis): string {
  const lines = ['## Story', '', `${STORY_ID_LINE_PREFIX}${story.id}`, `Title: ${oneLine(story.title)}`];
  if (Number.isFinite(story.priority)) {
    lines.push(`Priority: ${story.priority}`);
  }
  const state = prd.readiness.states[prd.doc.stories.indexOf(story)];
  if (story.passes) {
    lines.push('Status: already passes (this run re-checks it)');
  } else if (state && state.status === 'blocked') {
    lines.push(`Status: blocked — still waits on ${state.waitingOn.join(', ')} (run on request)`);
  }
  if (prd.doc.projectName) {
    lines.push(`Project: ${oneLine(prd.doc.projectName)}`);
  }
  if (prd.doc.branchName) {
    lines.push(`Branch: ${oneLine(prd.doc.branchName)}`);
  }
  lines.push('', '### Description', '', story.description.trim() || '(no description)');
  if (story.notes && story.notes.trim() !== '') {
    lines.push('', '### Notes', '', story.notes.trim());
  }
  return lines.join('\n');
}

function criteriaSection(story: Story): string {
  const items = story.acceptanceCriteria.filter((c) => c.trim() !== '');
  const body = items.length > 0 ? items.map((c) => `- [ ] ${c.trim().replace(/\s*\n\s*/g, ' ')}`).join('\n') : 'None listed: make the description true and the quality checks pass.';
  return `## Acceptance criteria\n\n${body}`;
}

function dependenciesSection(story: Story, prd: PrdAnalysis): string {
  if (story.blockedBy.length === 0) {
    return '## Depends on\n\nNothing: this story has no blockedBy entries.';
  }
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const ref of story.blockedBy) {
    if (seen.has(ref.id)) {
      continue;
    }
    seen.add(ref.id);
    const dep = prd.doc.stories.find((s) => s.id === ref.id);
    if (!dep) {
      lines.push(`- ${ref.id} — not a story in prd.json`);
    } else {
      lines.push(`- ${dep.id} — ${oneLine(dep.title)} (${dep.passes ? 'passes' : 'does not pass yet'})`);
    }
  }
  return `## Depends on\n\nThese stories came first; their code is in the repository (see \`git log\` for their feat: commits).\n\n${lines.join('\n')}`;
}

function patternsSection(progressText: string | undefined, progressFile: string): string {
  const head = `## Codebase Patterns (from ${progressFile})`;
  if (progressText === undefined) {
    return `${head}\n\n${progressFile} does not exist yet. Create it with a "## Codebase Patterns" section when you record your entry.`;
  }
  const text = patternsText(progressText, parseProgress(progressText));
  return `${head}\n\n${text === '' ? `${progressFile} has no Codebase Patterns yet.` : text}`;
}

function recentSection(progressText: string | undefined, progressFile: string, count: number): string {
  if (progressText === undefined || count <= 0) {
    return `## Recent progress\n\n${count <= 0 ? 'Not included.' : 'No progress entries yet.'}`;
  }
  const doc = parseProgress(progressText);
  const n = Math.min(count, doc.entries.length);
  const text = recentEntriesText(progressText, doc, count).trim();
  if (text === '') {
    return `## Recent progress\n\nNo entries in ${progressFile} yet.`;
  }
  return `## Recent progress (the last ${n === 1 ? 'entry' : `${n} entries`} of ${progressFile})\n\n${fenced(text, '')}`;
}

function pinSection(story: Story, input: PromptInput, pinFile: string): string {
  const head = `## Related modules (from the Pin, ${pinFile})`;
  if (input.pinText === undefined) {
    return `${head}\n\nThere is no ${pinFile} in this workspace. Search the code before adding new modules.`;
  }
  const doc = parsePin(input.pinText);
  const matches: PinMatch[] = matchPin(doc, storyWords(story)).slice(0, Math.max(0, input.maxPinEntries ?? 4));
  if (matches.length === 0) {
    const note = pinFormatNote(doc, pinFile);
    if (note) {
      return `${head}\n\nThere are ${note.replace(/;.*$/, '')}. Search the code before adding new modules.`;
    }
    return `${head}\n\nNo entry of ${pinFile} matches this story's words. If you add a module, add an entry for it.`;
  }
  const specLines = input.specLines ?? 100;
  const parts = [`${head}\n\nThese entries match the story's words. Read their files before you write new code; keep the Pin current when you add files.`];
  for (const m of matches) {
    const mod = m.module;
    const lines = [`### ${mod.name}`, ''];
    if (mod.description.length > 0) {
      lines.push(mod.description.join(' '), '');
    }
    lines.push(`Matched words: ${m.matched.join(', ')}`);
    if (mod.keywords.length > 0) {
      lines.push(`Keywords: ${mod.keywords.join(', ')}`);
    }
    if (mod.files.length > 0) {
      lines.push(`Files: ${mod.files.join(', ')}`);
    }
    if (mod.spec) {
      lines.push(`Spec: ${mod.spec}`);
      const { text: spec, refused } = readSpec(input.readFile, mod.spec);
      if (refused !== undefined) {
        lines.push('', `> The spec ${mod.spec} is listed in the Pin but was not read: ${refused}`);
      } else if (spec === undefined) {
        lines.push('', `> The spec ${mod.spec} is listed in the Pin but could not be read (missing file).`);
      } else {
        const all = spec.split(/\r\n|\r|\n/);
        if (all.length > 0 && all[all.length - 1] === '') {
          all.pop();
        }
        const shown = all.slice(0, specLines);
        const more = all.length > shown.length ? ` (first ${specLines} of ${all.length} lines)` : '';
        lines.push('', `#### ${mod.spec}${more}`, '', fenced(shown.join('\n'), 'markdown'));
      }
    }
    parts.push(lines.join('\n'));
  }
  return parts.join('\n\n');
}

/** The words the Pin is matched against: the story's title, description and notes. */
export function storyWords(story: Pick<Story, 'title' | 'description' | 'notes'>): string {
  return [story.title, story.description, story.notes ?? ''].join(' ');
}

/** A spec's text; `refused` holds the reader's message when it refused the path (outside the workspace, not a regular file). */
function readSpec(readFile: PromptInput['readFile'], path: string): { text?: string; refused?: string } {
  if (!readFile) {
    return {};
  }
  try {
    return { text: readFile(path.replace(/^\.\//, '')) };
  } catch (e) {
    return e instanceof Error && e.name === 'WorkspacePathError' ? { refused: e.message } : {};
  }
}

/** A fenced block whose fence is longer than any backtick run inside. */
function fenced(text: string, lang: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${text}\n${fence}`;
}

function oneLine(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/**
 * `.ralph/prompts/` file name for an iteration: `YYYYMMDD-HHMMSS-<id>.md` (local time). The id is
 * reduced to letters, digits, `.`, `_` and `-` (no slashes, no shell metacharacters, no leading
 * dots or dashes, at most 64 characters). `taken` adds `-2`, `-3`, … when a name exists already.
 */
export function promptFileName(date: Date, storyId: string, taken: (name: string) => boolean = () => false): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  const stamp = `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
  const base = `${stamp}-${sanitizeFileComponent(storyId)}`;
  if (!taken(`${base}.md`)) {
    return `${base}.md`;
  }
  for (let k = 2; ; k++) {
    const name = `${base}-${k}.md`;
    if (!taken(name)) {
      return name;
    }
  }
}

/** A string reduced to a safe single file-name component (`story` when nothing is left). */
export function sanitizeFileComponent(s: string, max = 64): string {
  const out = s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^[._-]+/, '')
    .slice(0, max)
    .replace(/[._-]+$/, '');
  return out === '' ? 'story' : out;
}
