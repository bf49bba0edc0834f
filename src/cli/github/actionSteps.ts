/**
 * The `ralph-workbench github` subcommands the generated workflow's steps call on the runner
 * (src/core/github/workflow.ts), so that what runs on Actions is TypeScript tested here rather than
 * inline scripts: `check-story` (the story may run: it exists, is ready, names a branch git
 * accepts, and the feature branch is prd.json's), `pr-text` (the pull request's title and body:
 * `Closes #<issue>` from the story's `issue` field and the run's record), `mark-passing` (one
 * minimal edit of prd.json), `issue-of` (the issue the advance job closes) and `next-dispatches`
 * (the dispatch plan fed with `gh`'s answers).
 * Every value arrives as an argument the workflow passes through `env:`, never as script text.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../../core/errorMessage';
import { describeDispatchWait, planDispatch, publishedIssue } from '../../core/github/dispatchPlan';
import { predictAll } from '../../core/loop/sameFile';
import { oneLine } from '../../core/output';
import { branchNameProblem } from '../../core/parallel/names';
import { setPassesByIdEdits } from '../../core/prd/graphEdits';
import { applyEdits } from '../../core/prd/edits';
import { analyzePrd, type PrdAnalysis } from '../../core/prd/index';
import type { Story } from '../../core/prd/model';
import { featCommitSubject, formatDuration, RUN_OUTCOMES, RUNS_FILE } from '../../core/runs/runs';
import { writeFileAtomicallySync } from '../../node/atomicWrite';
import { readPredictionInputs } from '../../node/parallel/predictionInputs';
import { readWorkspaceSettings } from '../../node/workspaceSettings';
import type { CliIo } from '../io';
import { type ArgValues, maxParallelValue, subcommandArgs } from './args';

/** A usage error or a failed check: the message, said once on stderr. */
class StepError extends Error {}

function parse(argv: readonly string[], names: readonly string[], prefix: string, flags: readonly string[] = []): ArgValues {
  const options = Object.fromEntries([...names.map((n) => [n, { type: 'string' as const }]), ...flags.map((f) => [f, { type: 'boolean' as const }])]);
  const parsed = subcommandArgs(argv, options);
  if ('error' in parsed) {
    throw new StepError(`${prefix}: ${parsed.error}`);
  }
  return parsed.values;
}

function required(values: ArgValues, name: string, prefix: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') {
    throw new StepError(`${prefix}: --${name} is required`);
  }
  return v;
}

function readText(file: string, what: string, prefix: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new StepError(`${prefix}: cannot read ${what} ${file}: ${code === 'ENOENT' ? 'no such file' : oneLine(errorMessage(e))}`);
  }
}

function loadPrd(values: ArgValues, prefix: string): { file: string; text: string; analysis: PrdAnalysis } {
  const file = typeof values.prd === 'string' && values.prd !== '' ? values.prd : 'prd.json';
  const text = readText(file, 'the PRD', prefix);
  const analysis = analyzePrd(text, { fileName: path.basename(file) });
  if (!analysis.readable) {
    const first = analysis.problems.find((p) => p.severity === 'error');
    throw new StepError(`${prefix}: ${file} cannot be read as a PRD${first ? `: ${oneLine(first.message)}` : ''}`);
  }
  return { file, text, analysis };
}

function storyOf(analysis: PrdAnalysis, id: string, file: string, prefix: string): Story {
  const found = analysis.doc.stories.filter((s) => s.id === id);
  if (found.length !== 1) {
    throw new StepError(`${prefix}: ${found.length === 0 ? `no story "${oneLine(id)}" in ${file}` : `the id "${oneLine(id)}" names ${found.length} stories in ${file}`}`);
  }
  return found[0];
}

/** `check-story --story ID --branch B [--prd FILE]`: exit 0 when the story may run on that branch. */
function checkStory(argv: readonly string[], io: CliIo): number {
  const prefix = 'ralph-workbench github check-story';
  const values = parse(argv, ['story', 'branch', 'prd'], prefix);
  const id = required(values, 'story', prefix);
  const branch = required(values, 'branch', prefix);
  const problem = branchNameProblem(`${branch}-${id}`);
  if (problem !== undefined) {
    throw new StepError(`${prefix}: the story branch "${oneLine(`${branch}-${id}`)}" is not a name git accepts (${problem})`);
  }
  const { file, analysis } = loadPrd(values, prefix);
  const story = storyOf(analysis, id, file, prefix);
  const featureBranch = analysis.doc.branchName;
  if (featureBranch !== undefined && featureBranch !== branch) {
    throw new StepError(`${prefix}: ${file} names the feature branch "${oneLine(featureBranch)}", not "${oneLine(branch)}": dispatch the story on its feature branch`);
  }
  const state = analysis.readiness.states.find((s) => s.story === story);
  if (story.passes) {
    throw new StepError(`${prefix}: ${oneLine(id)} passes already on ${oneLine(branch)}`);
  }
  if (state?.status !== 'ready') {
    throw new StepError(`${prefix}: ${oneLine(id)} is not ready: it waits for ${state?.waitingOn.map(oneLine).join(', ') || 'a dependency cycle'}`);
  }
  io.stdout(`${oneLine(id)} is ready on ${oneLine(branch)}.\n`);
  return 0;
}

/**
 * The run's record of a story (the last line of runs.jsonl `file` that names it), read loosely: a
 * missing field is left out. The file comes from the agent's runner, where the agent could write
 * anything: only an outcome of our vocabulary, a preset-like agent name and numbers reach the pull
 * request's body (never text such as "Closes #1").
 */
function lastRecord(file: string, storyId: string): { outcome?: string; durationMs?: number; cost?: number; agent?: string } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split(/\r?\n/).reverse()) {
    let r: unknown;
    try {
      r = JSON.parse(line);
    } catch {
      continue;
    }
    if (r !== null && typeof r === 'object' && (r as { storyId?: unknown }).storyId === storyId) {
      const o = r as Record<string, unknown>;
      const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
      return {
        outcome: RUN_OUTCOMES.find((k) => k === o.outcome),
        durationMs: num(o.durationMs),
        cost: num(o.costUsd) ?? num(o.cost),
        agent: typeof o.agent === 'string' && /^[A-Za-z][\w.-]{0,39}$/.test(o.agent) ? o.agent : undefined,
      };
    }
  }
  return undefined;
}

/** The pull request's title and body (Markdown) for a story. */
export function pullRequestText(story: Story, record: ReturnType<typeof lastRecord>): { title: string; body: string } {
  const issue = publishedIssue(story);
  const rows = record
    ? [
        record.outcome !== undefined ? `| Outcome | ${record.outcome} |` : '',
        record.durationMs !== undefined ? `| Duration | ${formatDuration(record.durationMs)} |` : '',
        record.cost !== undefined ? `| Cost | $${record.cost.toFixed(2)} |` : '',
        record.agent !== undefined ? `| Agent | ${oneLine(record.agent)} |` : '',
      ].filter((r) => r !== '')
    : [];
  const body = [
    issue !== undefined ? `Closes #${issue}` : `${oneLine(story.id)} has no issue in prd.json yet (publish the stories to link one).`,
    '',
    `**${oneLine(story.id)}: ${oneLine(story.title)}**`,
    '',
    rows.length > 0 ? ['| Run | |', '| --- | --- |', ...rows].join('\n') : 'No record of the run was found (.ralph/runs.jsonl).',
    '',
    '_Opened by the Ralph Workbench workflow._',
    '',
  ].join('\n');
  return { title: featCommitSubject(story.id, story.title), body };
}

/**
 * `pr-text --story ID --head BRANCH --out DIR [--prd FILE] [--story-prd FILE] [--runs FILE]`:
 * writes DIR/title.txt and DIR/body.md. The title and the issue to close come from --prd (the
 * feature branch's prd.json); whether the story passes from --story-prd (prd.json in the story's
 * commits, which the agent wrote: it could name another issue there; default: --prd). Refuses
 * (exit 1) when the story does not pass after the run: a pull request would mark it passing once
 * merged. --runs: the run's runs.jsonl (default .ralph/runs.jsonl here).
 */
function prText(argv: readonly string[], io: CliIo): number {
  const prefix = 'ralph-workbench github pr-text';
  const values = parse(argv, ['story', 'head', 'out', 'prd', 'story-prd', 'runs'], prefix);
  const id = required(values, 'story', prefix);
  const head = required(values, 'head', prefix);
  const out = required(values, 'out', prefix);
  const { file, analysis } = loadPrd(values, prefix);
  const story = storyOf(analysis, id, file, prefix);
  const after = typeof values['story-prd'] === 'string' && values['story-prd'] !== '' ? loadPrd({ prd: values['story-prd'] }, prefix) : { file, analysis };
  const passes = storyOf(after.analysis, id, after.file, prefix).passes;
  const record = lastRecord(typeof values.runs === 'string' && values.runs !== '' ? values.runs : path.join(process.cwd(), RUNS_FILE), id);
  if (!passes) {
    throw new StepError(
      `${prefix}: ${oneLine(id)} does not pass after the agent's run: no pull request opened; its commits are on ${oneLine(head)}` +
        `${record?.outcome ? ` (the run's outcome: ${record.outcome})` : ''}`,
    );
  }
  const { title, body } = pullRequestText(story, record);
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'title.txt'), title);
  writeFileSync(path.join(out, 'body.md'), body);
  io.stdout(`${title}\n`);
  return 0;
}

/**
 * `mark-passing --story ID [--prd FILE] [--skip-unknown]`: sets the story's passes to true, one
 * minimal edit (none when it passes already). --skip-unknown: an id that names no story (a merged
 * branch such as `<feature>-fix-typo`) is said and changes nothing, exit 0.
 */
function markPassing(argv: readonly string[], io: CliIo): number {
  const prefix = 'ralph-workbench github mark-passing';
  const values = parse(argv, ['story', 'prd'], prefix, ['skip-unknown']);
  const id = required(values, 'story', prefix);
  const { file, text, analysis } = loadPrd(values, prefix);
  if (values['skip-unknown'] === true && !analysis.doc.stories.some((s) => s.id === id)) {
    io.stdout(`"${oneLine(id)}" names no story in ${file}: nothing to mark.\n`);
    return 0;
  }
  const story = storyOf(analysis, id, file, prefix);
  if (story.passes) {
    io.stdout(`${oneLine(id)} passes already.\n`);
    return 0;
  }
  const edit = setPassesByIdEdits(text, id, true);
  if (!edit.ok) {
    throw new StepError(`${prefix}: ${oneLine(edit.message)}`);
  }
  writeFileAtomicallySync(file, applyEdits(text, edit.edits));
  io.stdout(`${oneLine(id)} marked passing in ${file}.\n`);
  return 0;
}

const GhRuns = z.array(z.object({ displayTitle: z.string(), status: z.string(), url: z.string().optional(), event: z.string().optional() }));
const GhPulls = z.array(z.object({ headRefName: z.string(), number: z.number().optional(), url: z.string().optional(), isCrossRepository: z.boolean().optional() }));

function readJson<T>(file: string, schema: z.ZodType<T>, what: string, prefix: string): T {
  let value: unknown;
  try {
    value = JSON.parse(readText(file, what, prefix));
  } catch (e) {
    throw e instanceof StepError ? e : new StepError(`${prefix}: ${what} ${file} is not JSON`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new StepError(`${prefix}: ${what} ${file} is not what gh prints (${oneLine(parsed.error.issues[0]?.message ?? 'unexpected shape')})`);
  }
  return parsed.data;
}

/**
 * `next-dispatches --runs FILE --pulls FILE --branch B --max-parallel N [--prd FILE]`: the ready
 * stories to dispatch now, one id a line on stdout (the workflow's `advance` job reads them); why
 * each other ready story waits, on stderr.
 */
async function nextDispatches(argv: readonly string[], io: CliIo): Promise<number> {
  const prefix = 'ralph-workbench github next-dispatches';
  const values = parse(argv, ['runs', 'pulls', 'branch', 'max-parallel', 'prd'], prefix);
  const runs = readJson(required(values, 'runs', prefix), GhRuns, 'the run list', prefix);
  const pulls = readJson(required(values, 'pulls', prefix), GhPulls, 'the pull request list', prefix);
  const branch = required(values, 'branch', prefix);
  const maxParallel = maxParallelValue(required(values, 'max-parallel', prefix));
  if (typeof maxParallel !== 'number') {
    throw new StepError(`${prefix}: ${maxParallel?.error ?? '--max-parallel is required'}`);
  }
  const { analysis } = loadPrd(values, prefix);
  const settings = readWorkspaceSettings(process.cwd()).values;
  const predictions = predictAll(analysis.doc.stories, await readPredictionInputs(process.cwd(), { prd: settings.prdPath, progress: settings.progressPath, pin: settings.pinPath }));
  const plan = planDispatch({
    readiness: analysis.readiness,
    featureBranch: branch,
    runs: runs.map((r) => ({ displayTitle: r.displayTitle, status: r.status, htmlUrl: r.url, event: r.event })),
    openPulls: pulls.map((p) => ({ headRef: p.headRefName, number: p.number, htmlUrl: p.url, fromFork: p.isCrossRepository })),
    maxParallel,
    filesOf: (id) => predictions.get(id) ?? [],
    allowOverlap: settings.parallelAllowOverlap,
    requirePublished: false,
  });
  for (const d of plan.dispatch) {
    if (branchNameProblem(`${branch}-${d.storyId}`) === undefined) {
      io.stdout(`${d.storyId}\n`);
    } else {
      io.stderr(`${prefix}: ${oneLine(d.storyId)} makes no branch name git accepts after "${oneLine(branch)}-": not dispatched\n`);
    }
  }
  for (const w of plan.waits) {
    io.stderr(`${oneLine(w.storyId)} ${describeDispatchWait(w.reason)}\n`);
  }
  return 0;
}

/**
 * `issue-of --story ID [--prd FILE] [--skip-unknown]`: the story's issue number (its `issue`
 * field) on stdout, nothing when it has none; --skip-unknown: an id that names no story prints
 * nothing, exit 0 (the advance job closes the issue of a merged story with it).
 */
function issueOf(argv: readonly string[], io: CliIo): number {
  const prefix = 'ralph-workbench github issue-of';
  const values = parse(argv, ['story', 'prd'], prefix, ['skip-unknown']);
  const id = required(values, 'story', prefix);
  const { file, analysis } = loadPrd(values, prefix);
  if (values['skip-unknown'] === true && !analysis.doc.stories.some((s) => s.id === id)) {
    return 0;
  }
  const issue = publishedIssue(storyOf(analysis, id, file, prefix));
  if (issue !== undefined) {
    io.stdout(`${issue}\n`);
  }
  return 0;
}

/** The workflow's helper subcommands by name. */
export const ACTION_STEPS: Readonly<Record<string, (argv: readonly string[], io: CliIo) => number | Promise<number>>> = {
  'check-story': checkStory,
  'pr-text': prText,
  'mark-passing': markPassing,
  'next-dispatches': nextDispatches,
  'issue-of': issueOf,
};

/** Runs a step, saying a StepError's message on stderr (exit 1). */
export async function runActionStep(name: string, argv: readonly string[], io: CliIo): Promise<number> {
  try {
    return await (ACTION_STEPS[name] as (typeof ACTION_STEPS)[string])(argv, io);
  } catch (e) {
    if (e instanceof StepError) {
      io.stderr(`${e.message}\n`);
      return 1;
    }
    io.stderr(`ralph-workbench github ${name}: ${oneLine(errorMessage(e))}\n`);
    return 1;
  }
}

export { StepError };
