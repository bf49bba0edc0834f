/**
 * ralph-workbench stats [--json|--csv] [--feature B] [--since DATE] [--until DATE] [--runs FILE] [--prd FILE]
 * The run insights of issue 21 (the figures the Run Dashboard draws), from `.ralph/runs.jsonl` read
 * as a stream.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { featureResolver } from '../../core/insights/features';
import { formatCost, formatTokens, passedText, percent, summaries } from '../../core/insights/format';
import { isFeature, parseDateBound, type RunStats, StatsAccumulator, type StatsFilter } from '../../core/insights/stats';
import { oneLine } from '../../core/output';
import { formatDuration, RUNS_FILE } from '../../core/runs/runs';
import { readFeatures } from '../../node/insights/features';
import { streamRuns } from '../../node/insights/runsReader';
import type { CliCommand, CliIo } from '../io';

const usage = `Usage: ralph-workbench stats [--json | --csv] [--feature BRANCH] [--since DATE] [--until DATE]
                            [--runs FILE] [--prd FILE]

Prints the run insights of the iterations in .ralph/runs.jsonl (the Run Dashboard's figures):
cost and tokens per story, cumulative cost per day, duration per iteration, success rate per loop,
attempts per story, time waiting on rate or usage limits. Costs and tokens are summed only where
the agent reported them; runs without a reported cost are counted as "unknown cost".

  --feature BRANCH  Only runs of this feature: prd.json's branchName (ralph/user-auth) or the part
                    after ralph/ (user-auth). A run's feature is read from the prd.json, or the
                    archive/<date>-<feature>/prd.json, that names its story.
  --since DATE      Only runs that started on or after DATE (2026-01-31, UTC, or an ISO 8601 time)
  --until DATE      Only runs that started on or before DATE (a date counts as the whole day)
  --runs FILE       The runs file (default ./${RUNS_FILE})
  --prd FILE        The current prd.json (default: prd.json of the folder that holds .ralph/);
                    archived features are read from that folder's archive/
  --json            Every figure as one JSON object (stories, loops, days, costOverTime, durations)
  --csv             One table: section (total, story, loop, day), key, label, runs, passed,
                    cost, unknownCost, inputTokens, outputTokens, cacheRead, cacheWrite,
                    durationMs, limitWaitMs
  -h, --help        This help

Lines of the runs file that are not runs are skipped and listed on stderr with their line numbers.
Exit 0; 1 when the runs file cannot be read, an option is wrong, or no run belongs to --feature.
`;

const OPTIONS = {
  json: { type: 'boolean' },
  csv: { type: 'boolean' },
  feature: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  runs: { type: 'string' },
  prd: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

interface StatsArgs {
  readonly format: 'text' | 'json' | 'csv';
  readonly runs: string;
  /** Absent: prd.json of the workspace folder. */
  readonly prd?: string;
  readonly filter: StatsFilter;
}

function parse(argv: readonly string[]): StatsArgs | { help: true } | { error: string } {
  let values;
  try {
    ({ values } = parseArgs({ args: argv.filter((a) => a !== 'stats'), options: OPTIONS, allowPositionals: false, strict: true }));
  } catch (e) {
    return { error: oneLine((e as Error).message) };
  }
  if (values.help) {
    return { help: true };
  }
  if (values.json && values.csv) {
    return { error: 'choose one of --json and --csv' };
  }
  const since = values.since === undefined ? undefined : parseDateBound(values.since, 'since');
  const until = values.until === undefined ? undefined : parseDateBound(values.until, 'until');
  for (const bound of [since, until]) {
    if (typeof bound === 'string') {
      return { error: bound };
    }
  }
  if (values.feature !== undefined && values.feature.trim() === '') {
    return { error: '--feature needs a branch name' };
  }
  return {
    format: values.json ? 'json' : values.csv ? 'csv' : 'text',
    runs: path.resolve(values.runs ?? RUNS_FILE),
    prd: values.prd === undefined ? undefined : path.resolve(values.prd),
    filter: { feature: values.feature?.trim(), since: since as number | undefined, until: until as number | undefined },
  };
}

/** A CSV field: quoted when needed; a leading = + - @ is defused so a spreadsheet shows it as text. */
function csvField(v: string | number): string {
  if (typeof v === 'number') {
    return String(Math.round(v * 1e6) / 1e6);
  }
  const text = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csv(s: RunStats): string {
  const header = ['section', 'key', 'label', 'runs', 'passed', 'cost', 'unknownCost', 'inputTokens', 'outputTokens', 'cacheRead', 'cacheWrite', 'durationMs', 'limitWaitMs'];
  const t = s.tokens;
  const rows: (string | number)[][] = [['total', '', '', s.runs, s.passed, s.cost, s.unknownCost, t.input, t.output, t.cacheRead, t.cacheWrite, s.durationMs, s.limitWaitMs]];
  for (const st of s.stories) {
    const k = st.tokens;
    rows.push(['story', st.storyId, st.title, st.attempts, st.passed, st.cost, st.unknownCost, k.input, k.output, k.cacheRead, k.cacheWrite, st.durationMs, st.limitWaitMs]);
  }
  for (const l of s.loops) {
    rows.push(['loop', l.loopId, l.start, l.runs, l.passed, l.cost, l.unknownCost, '', '', '', '', '', '']);
  }
  for (const d of s.days) {
    rows.push(['day', d.day, `cumulative ${d.cumulative.toFixed(4)}`, d.runs, '', d.cost, '', '', '', '', '', '', '']);
  }
  return [header, ...rows].map((r) => r.map(csvField).join(',')).join('\n') + '\n';
}

function text(s: RunStats): string {
  const out: string[] = [];
  out.push(`${s.runs} runs, ${passedText(s)}, ${formatDuration(s.durationMs)} in all${s.first ? ` (${s.first.slice(0, 10)} to ${(s.last ?? s.first).slice(0, 10)})` : ''}`);
  out.push(summaries.costPerStory(s), summaries.tokensPerStory(s), summaries.limitWaits(s));
  if (s.stories.length > 0) {
    out.push('', 'Per story:      attempts  passed        cost  unknown   tokens in  tokens out    duration  limit wait');
    for (const st of s.stories) {
      out.push(
        `  ${oneLine(st.storyId).padEnd(14)}${String(st.attempts).padStart(8)}${String(st.passed).padStart(8)}${formatCost(st.cost).padStart(12)}${String(st.unknownCost).padStart(9)}${formatTokens(st.tokens.input).padStart(12)}${formatTokens(st.tokens.output).padStart(12)}${formatDuration(st.durationMs).padStart(12)}${formatDuration(st.limitWaitMs).padStart(12)}  ${oneLine(st.title)}`,
      );
    }
  }
  if (s.loops.length > 0) {
    out.push('', 'Per loop:                         runs  success        cost  started');
    for (const l of s.loops) {
      out.push(`  ${oneLine(l.loopId || '(no loop id)').padEnd(30)}${String(l.runs).padStart(6)}${percent(l.successRate).padStart(9)}${formatCost(l.cost).padStart(12)}  ${oneLine(l.start)}`);
    }
  }
  if (s.days.length > 0) {
    out.push('', 'Per day:        runs        cost  cumulative');
    for (const d of s.days) {
      out.push(`  ${d.day}${String(d.runs).padStart(8)}${formatCost(d.cost).padStart(12)}${formatCost(d.cumulative).padStart(12)}`);
    }
  }
  return `${out.join('\n')}\n`;
}

async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parse(argv);
  if ('help' in args) {
    io.stdout(usage);
    return 0;
  }
  if ('error' in args) {
    io.stderr(`ralph-workbench stats: ${args.error}\n\n${usage}`);
    return 1;
  }
  // The workspace folder (where archive/ is): the one whose .ralph/ holds the runs file.
  const root = path.basename(path.dirname(args.runs)) === '.ralph' ? path.dirname(path.dirname(args.runs)) : process.cwd();
  const acc = new StatsAccumulator(featureResolver(await readFeatures(root, args.prd ?? path.join(root, 'prd.json'))), args.filter);
  let read;
  try {
    read = await streamRuns(args.runs, (r) => acc.add(r));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    io.stderr(
      code === 'ENOENT'
        ? `ralph-workbench stats: ${args.runs} does not exist: no iteration has been recorded here yet (run stats in the workspace folder, or name the file with --runs).\n`
        : `ralph-workbench stats: cannot read ${args.runs} (${code ?? oneLine((e as Error).message)}).\n`,
    );
    return 1;
  }
  for (const err of read.errors) {
    io.stderr(`${args.runs}:${err.line}: skipped: ${err.message}\n`);
  }
  if (read.moreErrors > 0) {
    io.stderr(`${args.runs}: and ${read.moreErrors} more lines skipped\n`);
  }
  const stats = acc.result();
  const wanted = args.filter.feature;
  if (wanted !== undefined && !stats.features.some((f) => isFeature(f.name, wanted))) {
    const known = stats.features.map((f) => `${f.name} (${f.runs} runs)`).join(', ');
    io.stderr(`ralph-workbench stats: no run belongs to feature "${wanted}"${known ? `; the runs belong to: ${known}` : ''}.\n`);
    return 1;
  }
  if (args.format === 'json') {
    io.stdout(`${JSON.stringify({ ...stats, skipped: read.errors })}\n`);
  } else if (args.format === 'csv') {
    io.stdout(csv(stats));
  } else {
    io.stdout(text(stats));
  }
  return 0;
}

export const statsCommand: CliCommand = {
  name: 'stats',
  summary: 'Print the run insights: cost, tokens, durations, success rates, limit waits.',
  usage,
  run,
  stdoutKind: (argv) => (argv.includes('--json') || argv.includes('--csv') ? 'json' : 'text'),
};
