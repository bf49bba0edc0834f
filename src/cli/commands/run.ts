/**
 * `ralph-workbench run`: the parallel runner (src/node/parallel/runner.ts) without VS Code, for a
 * loop in a terminal, over SSH, in CI or in a container. The same core as the extension: the
 * schedule, the prompt, the worktrees, the merge queue, runs.jsonl and the stop rules. Each
 * agent's output goes to `.ralph/logs/<run>.log`; stdout gets one status line per event (JSON
 * lines with --json). Exit 1 when a story was left needing the user, the limit breaker stopped it
 * (ralph.agent.maxLimitedInARow) or the run could not start,
 * 0 otherwise. SIGINT/SIGTERM stop cleanly (agents get SIGTERM, then SIGKILL after a grace period;
 * the queue's state is saved); a second one ends the process at once, its agents SIGKILLed first.
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { AGENT_PRESETS, type AgentPresetId, shellKindOf } from '../../core/agents/presets';
import { errorMessage } from '../../core/errorMessage';
import { type Budget, budgetOf } from '../../core/insights/budget';
import { type AgentCommandPlan, planAgentCommand } from '../../core/loop/iteration';
import type { StopReason } from '../../core/loop/loop';
import type { ParallelStop } from '../../core/loop/parallelLoop';
import { MERGE_MODES, type MergeMode } from '../../core/parallel/state';
import { oneLine } from '../../core/output';
import { ParallelError } from '../../node/parallel/git';
import { ParallelRunner, type RunnerEvent } from '../../node/parallel/runner';
import { killRunningAgents, processExecutor } from '../../node/processExecutor';
import { ralphScripts } from '../../node/ralphScripts';
import { cliRenderStream } from '../../node/renderStreamCommand';
import { terminalLookup } from '../../node/programLookup';
import { RunError } from '../../node/preparer';
import { readWorkspaceSettings } from '../../node/workspaceSettings';
import type { SettingValues } from '../../core/settingKeys';
import { waitSentence } from '../../core/insights/waitText';
import { type SerialEvent, SerialRun } from '../serialRun';
import type { CliCommand, CliIo } from '../io';

const PRESET_IDS: readonly string[] = AGENT_PRESETS.map((p) => p.id);

/** Stops that mean the run could not start (exit 1): no prd.json, or one that cannot be read. */
const COULD_NOT_START: readonly StopReason[] = ['prd-missing', 'invalid-prd'];
/**
 * Stops that leave the work undone until the user acts (exit 1, as a story left needing them):
 * the limit breaker (wait for the reset or change the plan), and in a serial run the failure and
 * no-progress breakers (the parallel loop lists those as Needs You items).
 */
const NEEDS_THE_USER: readonly StopReason[] = [...COULD_NOT_START, 'rate-limit'];

export const runUsage = `Usage: ralph-workbench run [--story ID | --next] [options]

Run the workspace's stories with agents, each story in its own git worktree on its own branch,
merging finished stories into the feature branch one at a time (the schedule's order), as the
extension's parallel loop does. Defaults come from the workspace's ralph.* settings in
.vscode/settings.json where present, else the extension's defaults.

Options:
  --story ID             Run only this story
  --next                 Run only the next ready story (one iteration)
  --loop N               At most N agent runs in all (ralph.loop.maxIterations)
  --parallel K           At most K agents at once (ralph.parallel.maxAgents). 1: one story at a
                         time in the folder itself, as the extension's serial loop (no worktree,
                         no merge, git not needed; --story then runs that story once)
  --agent PRESET         The agent preset (${PRESET_IDS.join(', ')})
  --agent-command CMD    Your own agent command line (\${promptFile}, \${storyId}, \${workspaceFolder})
  --check CMD            Run after each merge in the main tree; a failure undoes that merge
  --merge MODE           merge (git merge --no-ff, default) or rebase
  --failure-limit N      A story whose agent fails N times in a row needs you
  --no-progress-limit N  A story that does not pass after N runs in a row needs you
  --timeout-minutes M    End an agent that runs longer than M minutes (ralph.parallel.
                         runTimeoutMinutes, default 60; 0: no limit); the run counts as failed
  --max-cost USD         Start nothing new once the runs reported spending USD dollars in all
                         (ralph.budget.maxCostPerLoop; a story's own cap: ralph.budget.
                         maxCostPerStory); a deliberate stop (exit 0)
  --max-tokens N         Start nothing new once the runs reported using N tokens
                         (ralph.budget.maxTokensPerLoop)
  --max-limited N        Stop after N runs in a row ended at the agent's usage or rate limit,
                         counted across the slots (ralph.agent.maxLimitedInARow, default 5;
                         0: never); exit 1
  --allow-overlap        Start stories predicted to change the same files at once
  --worktree-root DIR    Where the worktrees go (default <repo>/../.<repo>-ralph-worktrees)
  --root DIR             The workspace folder (default: the current folder)
  --json                 One JSON object per event on stdout

Receipts: what each run cost is read from its agent's output and written to .ralph/runs.jsonl
(cost, tokens, model, turns; receipt: parsed, none or unreadable): Claude Code's result
(--output-format json or stream-json), Codex's turn.completed events (codex exec --json), Amp's
stream-json result, Copilot's usage summary. Any agent command may print its own, on a line of
its own:
  ralph-receipt: {"cost": 0.1234, "tokens": {"input": 1200, "output": 340, "cacheRead": 0,
  "cacheWrite": 0}, "model": "my-model", "turns": 7}
(every key optional; cost in US dollars; the last such line of a run counts; add
"cachedInInput": true when input already counts the cached tokens, as Codex's does).
The claude, codex and amp presets ask their agent for its JSON stream and pipe it through this
CLI's own render-stream (the \${renderStream} placeholder: this Node and this script), which shows
it readably and prints the receipt. In your own --agent-command: ... | \${renderStream} --agent codex
(render-stream --help).

Each agent's output: .ralph/logs/<run>.log. The queue's state: .ralph/parallel.json (a run
that was killed resumes from it). One run per workspace at a time (.ralph/run.lock).
Exit status: 0 when every runnable story passes, the iteration limit is reached or you stopped
it; 1 when a story needs you (a merge conflict, a failed check, the failure breaker), the agent
hit its limit --max-limited times in a row, or the run could not start.
`;

const OPTIONS = {
  story: { type: 'string' },
  next: { type: 'boolean' },
  loop: { type: 'string' },
  parallel: { type: 'string' },
  agent: { type: 'string' },
  'agent-command': { type: 'string' },
  check: { type: 'string' },
  merge: { type: 'string' },
  'failure-limit': { type: 'string' },
  'no-progress-limit': { type: 'string' },
  'timeout-minutes': { type: 'string' },
  'max-cost': { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-limited': { type: 'string' },
  'allow-overlap': { type: 'boolean' },
  'worktree-root': { type: 'string' },
  root: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface RunArgs {
  readonly root: string;
  readonly story?: string;
  readonly next: boolean;
  readonly json: boolean;
  readonly loop?: number;
  readonly parallel?: number;
  readonly agent?: AgentPresetId;
  readonly agentCommand?: string;
  readonly check?: string;
  readonly merge?: MergeMode;
  readonly failureLimit?: number;
  readonly noProgressLimit?: number;
  readonly timeoutMinutes?: number;
  /** --max-cost (US dollars) and --max-tokens: the loop's caps, over the settings'. */
  readonly maxCost?: number;
  readonly maxTokens?: number;
  /** --max-limited: rate-limited runs in a row before the loop stops (0: never), over ralph.agent.maxLimitedInARow. */
  readonly maxLimited?: number;
  readonly allowOverlap: boolean;
  readonly worktreeRoot?: string;
}

/** --timeout-minutes: a number of minutes, fractions allowed (0: no limit). */
function minutesArg(v: string | boolean | undefined): number | undefined | string {
  if (v === undefined) {
    return undefined;
  }
  return typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : `--timeout-minutes needs a number of minutes, 0 or more (got "${oneLine(String(v))}")`;
}

/** --max-cost: US dollars, cents allowed ("5", "2.50"; 0: no cap). */
function dollarsArg(v: string | boolean | undefined): number | undefined | string {
  if (v === undefined) {
    return undefined;
  }
  return typeof v === 'string' && /^\$?\d+(\.\d+)?$/.test(v.trim()) ? Number(v.trim().replace(/^\$/, '')) : `--max-cost needs an amount of US dollars, 0 or more (got "${oneLine(String(v))}")`;
}

export function parseRunArgs(argv: readonly string[], cwd: string): { args?: RunArgs; help?: boolean; error?: string } {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true }));
  } catch (e) {
    return { error: oneLine(errorMessage(e)) };
  }
  if (values.help) {
    return { help: true };
  }
  const extra = positionals.filter((p) => p !== 'run');
  if (extra.length > 0) {
    return { error: `unexpected argument "${oneLine(extra[0])}"` };
  }
  const count = (name: string, min: number): number | undefined | string => {
    const v = values[name];
    if (v === undefined) {
      return undefined;
    }
    const n = Number(v);
    return typeof v === 'string' && /^\d+$/.test(v.trim()) && n >= min ? n : `--${name} needs a whole number of at least ${min} (got "${oneLine(String(v))}")`;
  };
  const numbers = {
    loop: count('loop', 1),
    parallel: count('parallel', 1),
    failureLimit: count('failure-limit', 1),
    noProgressLimit: count('no-progress-limit', 1),
    timeoutMinutes: minutesArg(values['timeout-minutes']),
    maxCost: dollarsArg(values['max-cost']),
    maxTokens: count('max-tokens', 0),
    maxLimited: count('max-limited', 0),
  };
  const bad = Object.values(numbers).find((v): v is string => typeof v === 'string');
  if (bad) {
    return { error: bad };
  }
  const agent = values.agent as string | undefined;
  if (agent !== undefined && !(PRESET_IDS as readonly string[]).includes(agent)) {
    return { error: `unknown agent preset "${oneLine(agent)}" (one of ${PRESET_IDS.join(', ')})` };
  }
  const merge = values.merge as string | undefined;
  if (merge !== undefined && !(MERGE_MODES as readonly string[]).includes(merge)) {
    return { error: `--merge is merge or rebase (got "${oneLine(merge)}")` };
  }
  if (values.story !== undefined && values.next) {
    return { error: '--story and --next cannot go together' };
  }
  if (values.story === '') {
    return { error: '--story needs a story id' };
  }
  const str = (name: string): string | undefined => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  return {
    args: {
      root: path.resolve(cwd, str('root') ?? '.'),
      story: str('story'),
      next: values.next === true,
      json: values.json === true,
      loop: numbers.loop as number | undefined,
      parallel: numbers.parallel as number | undefined,
      agent: agent as AgentPresetId | undefined,
      agentCommand: str('agent-command'),
      check: str('check'),
      merge: merge as MergeMode | undefined,
      failureLimit: numbers.failureLimit as number | undefined,
      noProgressLimit: numbers.noProgressLimit as number | undefined,
      timeoutMinutes: numbers.timeoutMinutes as number | undefined,
      maxCost: numbers.maxCost as number | undefined,
      maxTokens: numbers.maxTokens as number | undefined,
      maxLimited: numbers.maxLimited as number | undefined,
      allowOverlap: values['allow-overlap'] === true,
      worktreeRoot: str('worktree-root') !== undefined ? path.resolve(cwd, str('worktree-root') as string) : undefined,
    },
  };
}

/** How the runner is asked to stop from outside (SIGINT/SIGTERM in a real process; tests call it). */
export interface Interrupts {
  /** Registers the handler; returns what unregisters it. */
  on(handler: (signal: string) => void): () => void;
  /** A second interrupt: end at once. */
  exit(code: number): void;
}

const processInterrupts: Interrupts = {
  on(handler) {
    const h = (signal: NodeJS.Signals): void => handler(signal);
    process.on('SIGINT', h);
    process.on('SIGTERM', h);
    return () => {
      process.off('SIGINT', h);
      process.off('SIGTERM', h);
    };
  },
  exit: (code) => {
    // The agents run in process groups of their own: without this they would outlive the run.
    killRunningAgents();
    process.exit(code);
  },
};

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** One status line per event, for a person. */
export function statusLine(e: RunnerEvent): string | undefined {
  switch (e.kind) {
    case 'resumed': {
      const r = e.report;
      const parts = [
        r.merged.length > 0 ? `merged ${r.merged.map((m) => `${m.storyId} (${m.kind})`).join(', ')}` : '',
        r.interrupted.length > 0 ? `interrupted: ${r.interrupted.join(', ')}` : '',
        r.orphaned.length > 0 ? `orphaned worktrees: ${r.orphaned.map((o) => `${o.folder} (${o.branch}, ${o.commits.length} commit(s) not merged)`).join('; ')}` : '',
        ...r.notes,
      ].filter((p) => p !== '');
      return `↻ resumed the previous run${parts.length > 0 ? `: ${parts.join('; ')}` : ''}`;
    }
    case 'started':
      return `▶ ${e.storyId} — ${e.storyTitle}: started (${e.iteration}/${e.maxIterations}, wave ${e.wave + 1}) in ${e.worktree.folder} on ${e.worktree.branch}; log ${e.logFile}`;
    case 'agentEnded':
      return `■ ${e.storyId}: agent ended — ${e.outcome}${e.exitCode !== null ? ` (exit ${e.exitCode})` : ''} after ${seconds(e.durationMs)}${e.message ? `: ${e.message}` : ''}`;
    case 'merging':
      return `⇢ ${e.storyId}: merging`;
    case 'merged':
      return e.result === 'merged' ? `✓ ${e.storyId}: merged${e.commit ? ` (${e.commit.slice(0, 8)})` : ''}` : `✗ ${e.storyId}: not merged — ${e.result}${e.message ? `: ${e.message}` : ''}`;
    case 'needsYou':
      return `! ${e.item.message}`;
    case 'note':
      return `· ${e.message}`;
    case 'waiting':
      return waitLine(e);
    case 'stopped':
      return [e.stop.message, ...e.stop.details.map((d) => `  ${d}`)].join('\n');
  }
}

/** "⏸ US-001: rate-limited by claude: waiting until 15:00:30 (in 12 min); Ctrl-C stops" (the clock in this machine's time). */
function waitLine(e: { readonly storyId: string; readonly agent: string; readonly until: number; readonly source: 'reset' | 'backoff' }): string {
  return `⏸ ${e.storyId}: ${waitSentence(e.agent, e.until, Date.now(), new Date(e.until).toLocaleTimeString('en-GB', { hour12: false }), e.source)}; Ctrl-C stops`;
}

function jsonLine(e: RunnerEvent): string {
  return JSON.stringify({ ...e, time: new Date().toISOString() });
}

export async function runRun(argv: readonly string[], io: CliIo, interrupts: Interrupts = processInterrupts, cwd = process.cwd()): Promise<number> {
  const parsed = parseRunArgs(argv, cwd);
  if (parsed.help) {
    io.stdout(runUsage);
    return 0;
  }
  if (!parsed.args) {
    io.stderr(`ralph-workbench run: ${parsed.error}\n\n${runUsage}`);
    return 1;
  }
  const a = parsed.args;
  const ws = readWorkspaceSettings(a.root);
  for (const p of ws.problems) {
    io.stderr(`ralph-workbench run: ${p.message}\n`);
  }
  const s = ws.values;
  const agentCommand = a.agentCommand ?? s.agentCommand;
  if (a.agentCommand === undefined && s.agentCommand.trim() !== '') {
    io.stderr(`ralph-workbench run: the agent command comes from .vscode/settings.json (ralph.agent.command): ${oneLine(s.agentCommand)}\n`);
  }
  const check = a.check ?? s.parallelCheckCommand;
  if (a.check === undefined && check.trim() !== '') {
    io.stderr(`ralph-workbench run: the check command comes from .vscode/settings.json (ralph.parallel.checkCommand): ${oneLine(check)}\n`);
  }
  const files = { prd: s.prdPath, progress: s.progressPath, pin: s.pinPath, template: s.promptTemplateFile };
  const lookup = terminalLookup(undefined);
  const renderStream = cliRenderStream();
  const shell = process.platform === 'win32' ? (shellKindOf(process.env.ComSpec ?? '') ?? 'cmd') : 'posix';
  const out = (e: RunnerEvent): void => {
    if (a.json) {
      io.stdout(`${jsonLine(e)}\n`);
      return;
    }
    const line = statusLine(e);
    if (line !== undefined) {
      io.stdout(`${line}\n`);
    }
  };
  const maxAgents = a.next ? 1 : (a.parallel ?? s.parallelMaxAgents);
  const budget: Budget = { ...budgetOf(s), ...(a.maxCost !== undefined ? { maxCostPerLoop: a.maxCost } : {}), ...(a.maxTokens !== undefined ? { maxTokensPerLoop: a.maxTokens } : {}) };
  const planAgent = (storyId: string, promptPath: string, cwd: string, fallbackPreset?: string) => {
    const scripts = ralphScripts(cwd);
    return planAgentCommand({
      presetId: fallbackPreset ?? a.agent ?? s.agentPreset,
      command: fallbackPreset !== undefined || (a.agent !== undefined && a.agentCommand === undefined) ? '' : agentCommand,
      shell,
      exists: (rel) => scripts.has(rel),
      vars: { promptFile: promptPath, storyId, workspaceFolder: cwd },
      lookup,
      renderStream,
    });
  };
  // a command line of the user's own has no presets to fall back on
  const fallback = (a.agentCommand ?? s.agentCommand).trim() === '' ? s.agentFallback : [];
  if (maxAgents === 1) {
    return runOneAtATime(a, s, budget, fallback, planAgent, io, interrupts);
  }
  const runner = new ParallelRunner(
    a.root,
    {
      config: {
        maxAgents,
        maxIterations: a.next ? 1 : (a.loop ?? s.maxIterations),
        failureLimit: a.failureLimit ?? s.failureLimit,
        noProgressLimit: a.noProgressLimit ?? s.noProgressLimit,
        allowOverlap: a.allowOverlap || s.parallelAllowOverlap,
        maxLimitedInARow: a.maxLimited ?? s.agentMaxLimitedInARow,
      },
      mergeMode: a.merge ?? (s.parallelMerge as MergeMode),
      checkCommand: check.trim() || undefined,
      worktreeRoot: a.worktreeRoot ?? (s.parallelWorktreeRoot.trim() ? path.resolve(a.root, s.parallelWorktreeRoot) : undefined),
      runTimeoutMs: (a.timeoutMinutes ?? s.parallelRunTimeoutMinutes) * 60_000,
      files,
      holder: 'the ralph-workbench run command',
      only: a.story !== undefined ? [a.story] : undefined,
      manageBranch: s.manageBranch,
      budget,
      fallback,
    },
    {
      executor: processExecutor,
      onEvent: out,
      planAgent: (req) => planAgent(req.storyId, req.promptPath, req.cwd, req.presetId),
    },
  );
  let interrupted = 0;
  const off = interrupts.on((signal) => {
    interrupted++;
    if (interrupted === 1) {
      io.stderr(`ralph-workbench run: ${signal}: stopping — ending the running agents, merging finished work (${signal} again to end at once)\n`);
      runner.requestStop('now');
    } else {
      io.stderr(`ralph-workbench run: ${signal} again: ending now; .ralph/parallel.json keeps the queue for the next run to resume\n`);
      interrupts.exit(130);
    }
  });
  let stop: ParallelStop;
  try {
    stop = await runner.run();
  } catch (e) {
    io.stderr(`ralph-workbench run: ${e instanceof ParallelError ? e.message : `the run could not start: ${errorMessage(e)}`}\n`);
    return 1;
  } finally {
    off();
  }
  if (stop.needsYou.length > 0) {
    io.stderr(`ralph-workbench run: ${stop.needsYou.length === 1 ? 'a story needs' : `${stop.needsYou.length} stories need`} you:\n${stop.needsYou.map((n) => `  ${n.message}`).join('\n')}\n`);
    return 1;
  }
  return NEEDS_THE_USER.includes(stop.reason) ? 1 : 0;
}

/**
 * One agent at a time: the serial loop in the folder itself (no worktree, no merge; git is not
 * needed). `--story` runs that story once; the exit status follows the parallel runner's: 1 when a
 * breaker left a story needing the user or the run could not start.
 */
async function runOneAtATime(a: RunArgs, s: SettingValues, budget: Budget, fallback: readonly string[], planAgent: (storyId: string, promptPath: string, cwd: string, fallbackPreset?: string) => AgentCommandPlan, io: CliIo, interrupts: Interrupts): Promise<number> {
  const ignored = [a.check !== undefined && '--check', a.merge !== undefined && '--merge', a.allowOverlap && '--allow-overlap', a.worktreeRoot !== undefined && '--worktree-root'].filter((f): f is string => typeof f === 'string');
  if (ignored.length > 0) {
    io.stderr(`ralph-workbench run: one at a time, stories run in the folder itself and are not merged: ${ignored.join(', ')} ${ignored.length === 1 ? 'does' : 'do'} not apply\n`);
  }
  const run = new SerialRun({
    root: a.root,
    settings: s,
    maxIterations: a.next || a.story !== undefined ? 1 : (a.loop ?? s.maxIterations),
    storyId: a.story,
    failureLimit: a.failureLimit ?? s.failureLimit,
    noProgressLimit: a.noProgressLimit ?? s.noProgressLimit,
    maxLimitedInARow: a.maxLimited ?? s.agentMaxLimitedInARow,
    budget,
    timeoutMs: (a.timeoutMinutes ?? s.parallelRunTimeoutMinutes) * 60_000,
    planAgent: (storyId, promptPath, presetId) => planAgent(storyId, promptPath, a.root, presetId),
    fallback,
    onEvent: (e) => io.stdout(a.json ? `${JSON.stringify({ ...e, time: new Date().toISOString() })}\n` : `${serialLine(e)}\n`),
    warn: (line) => io.stderr(`ralph-workbench run: ${line}\n`),
  });
  let interrupted = 0;
  const off = interrupts.on((signal) => {
    interrupted++;
    if (interrupted === 1) {
      io.stderr(`ralph-workbench run: ${signal}: stopping — ending the running agent or its wait (${signal} again to end at once)\n`);
      void run.stop();
    } else {
      interrupts.exit(130);
    }
  });
  try {
    const stop = await run.run();
    return stop.reason === 'failures' || stop.reason === 'no-progress' || NEEDS_THE_USER.includes(stop.reason) ? 1 : 0;
  } catch (e) {
    io.stderr(`ralph-workbench run: ${e instanceof RunError ? e.message : `the run could not start: ${errorMessage(e)}`}\n`);
    return 1;
  } finally {
    off();
  }
}

/** One status line per event of a serial run, for a person. */
function serialLine(e: SerialEvent): string {
  switch (e.kind) {
    case 'started':
      return `▶ ${e.storyId} — ${e.storyTitle}: started (${e.iteration}/${e.maxIterations}) in ${e.folder}; log ${e.logFile}`;
    case 'agentEnded':
      return `■ ${e.storyId}: agent ended — ${e.outcome}${e.exitCode !== null ? ` (exit ${e.exitCode})` : ''} after ${seconds(e.durationMs)}`;
    case 'note':
      return `· ${e.message}`;
    case 'waiting':
      return waitLine(e);
    case 'stopped':
      return [e.stop.message, ...e.stop.details.map((d) => `  ${d}`)].join('\n');
  }
}

export const runCommand: CliCommand = {
  name: 'run',
  summary: 'Run the stories with agents, in parallel git worktrees with a merge queue (run --help).',
  usage: runUsage,
  run: (argv, io) => runRun(argv, io),
};
