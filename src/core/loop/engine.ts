/**
 * The run engine: starts runs (Run objects in a RunSet, one per folder at a time), drives each
 * with the scheduler (src/core/loop/scheduler.ts: the LoopController's choice is the one that
 * runs), and carries one iteration through its parts: the workspace preparer (branch, archive,
 * prompt), the executor (the agent's process) and the recorder (runs.jsonl). Every part is a port,
 * and nothing here imports vscode, so the same engine can run several stories at once or run
 * headless; the extension's Runner (src/services/run/runner.ts) supplies the VS Code parts, the
 * CLI's `run --parallel 1` (src/cli/serialRun.ts) the headless ones.
 */
import { type AgentChoice, agentChoice, agentFreeNow, availableFallback } from './agentChoice';
import { type Clock, realClock } from './clock';
import type { AgentExecutor, AgentHandle, AgentLaunch } from './executor';
import { completeIteration } from './iteration';
import { type IterationRecord, LoopController, type RunStep, type StopMode, type StopStep } from './loop';
import { type Run, RunSet } from './runSet';
import { type LoopOutcome, runLoop } from './scheduler';
import { type LimitVerdict, limitWait, localTimeZone, OutputTail } from '../insights/limits';
import type { Budget } from '../insights/budget';
import { receiptReaderFor } from '../insights/receipts';
import { CompleteSignalDetector } from '../output';
import type { PrdAnalysis } from '../prd/index';
import { type FeatCommit, fewPaths, type RunRecord } from '../runs/runs';

/** An iteration made ready by the preparer: the prompt is written, the agent command planned. */
export interface PreparedIteration {
  /** Workspace-relative prompt file (it also names the run in the Runs view). */
  readonly promptFile: string;
  /** The agent preset id (or "custom"), for runs.jsonl. */
  readonly agent: string;
  readonly launch: Omit<AgentLaunch, 'onOutput'>;
  /** What git says after the agent ended (undefined fields: git was not checked). */
  observe(): Promise<{ readonly commits?: readonly FeatCommit[]; readonly uncommitted?: readonly string[] }>;
}

export interface RunPorts<F, H extends AgentHandle> {
  /** The folder's identity: at most one run per key. */
  readonly keyOf: (folder: F) => string;
  /** prd.json now, from the workspace model (undefined: none). */
  read(folder: F): Promise<PrdAnalysis | undefined>;
  /**
   * The preflight, once, before the first iteration changes anything (the step the loop chose, its
   * snapshot, the story the user picked): throws what would fail; a stop step runs nothing (the
   * user cancelled a question); runAnyway allows a dirty checkout.
   */
  preflight(folder: F, step: RunStep, before: PrdAnalysis, requestedStory: string | undefined): Promise<{ readonly stop?: StopStep; readonly runAnyway: boolean }>;
  /** `presetId`: run this preset instead of the configured agent (the fallback while that one is limited). */
  prepare(folder: F, step: RunStep, before: PrdAnalysis, allowDirtyCheckout: boolean, presetId?: string): Promise<PreparedIteration>;
  readonly executor: AgentExecutor<H>;
  /** The one writer of runs.jsonl (and of the prd.json snapshot archiving reads later). */
  record(folder: F, line: RunRecord, after: PrdAnalysis | undefined): Promise<void>;
  readonly log: { info(line: string): void; warn(line: string): void };
  /** A run started, changed or ended (phase 'finished'). */
  changed?(run: Run<F>): void;
  /** An iteration's agent started / ended (the extension keeps its terminal). */
  agentStarted?(run: Run<F>, handle: H, promptFile: string): void;
  agentEnded?(run: Run<F>, handle: H, promptFile: string): void;
  /** An iteration was recorded. */
  recorded?(folder: F, record: IterationRecord): void;
  /** Time and sleeping (default: the real clock); tests pass one that does not sleep. */
  readonly clock?: Clock;
  /** The IANA time zone a reset time printed without one is read in (default: this machine's). */
  readonly timeZone?: string;
}

export interface RunRequest {
  readonly maxIterations: number;
  /** Run this story first (the user picked it), whatever its state: a rule of the LoopController. */
  readonly storyId?: string;
  readonly noProgressLimit?: number;
  readonly failureLimit?: number;
  readonly prdLabel?: string;
  /** ralph.agent.fallback: presets to run, in this order, while the configured agent is limited (not waiting while one is not). */
  readonly fallback?: readonly string[];
  /** Cost and token caps (ralph.budget.*, the CLI's --max-cost / --max-tokens). */
  readonly budget?: Budget;
  /** ralph.agent.maxLimitedInARow: stop after this many rate-limited iterations in a row (0: never). */
  readonly maxLimitedInARow?: number;
}

export class RunEngine<F, H extends AgentHandle> {
  private readonly runs: RunSet<F>;
  private readonly loops = new Map<string, LoopController>();
  private readonly handles = new Map<string, H>();
  /** The runs waiting out an agent's limit: aborting ends the wait (Resume Now, Stop). */
  private readonly waits = new Map<string, AbortController>();
  private readonly clock: Clock;

  constructor(private readonly ports: RunPorts<F, H>) {
    this.runs = new RunSet(ports.keyOf, (run) => ports.changed?.(run));
    this.clock = ports.clock ?? realClock;
  }

  /** The runs that have not ended, oldest first. */
  all(): Run<F>[] {
    return this.runs.all();
  }

  inFolder(folder: F): Run<F> | undefined {
    return this.runs.inFolder(folder);
  }

  /** The agent of a run's current iteration, while it runs. */
  handleOf(runId: string): H | undefined {
    return this.handles.get(runId);
  }

  /** Runs a loop in a folder until a stop rule applies (RunBusyError while another runs there). */
  async run(folder: F, request: RunRequest): Promise<LoopOutcome> {
    const loop = new LoopController({
      maxIterations: request.maxIterations,
      noProgressLimit: request.noProgressLimit,
      failureLimit: request.failureLimit,
      prdLabel: request.prdLabel,
      firstStory: request.storyId,
      budget: request.budget,
      maxLimitedInARow: request.maxLimitedInARow,
    });
    const run = this.runs.start(folder, loop.config.maxIterations, new Date());
    const agents = agentChoice(request.fallback);
    this.loops.set(run.id, loop);
    let allowDirtyCheckout = false;
    try {
      return await runLoop(loop, {
        read: () => this.ports.read(folder),
        beforeFirstIteration: async (step, before) => {
          const answer = await this.ports.preflight(folder, step, before, request.storyId);
          allowDirtyCheckout = answer.runAnyway;
          return answer.stop;
        },
        iterate: (step, before) => this.iteration(run.id, folder, loop, step, before, allowDirtyCheckout, agents),
        log: (line) => this.ports.log.info(line),
      });
    } finally {
      this.handles.get(run.id)?.dispose();
      this.handles.delete(run.id);
      this.loops.delete(run.id);
      this.runs.end(run.id);
    }
  }

  /** Asks the matching runs to stop after their running iteration; false when none runs. */
  stopAfterIteration(which: (run: Run<F>) => boolean = () => true): boolean {
    return this.requestStop('after-iteration', which).length > 0;
  }

  /** Ends the matching runs' agents now (each iteration is recorded as stopped); false when none runs. */
  async stopNow(which: (run: Run<F>) => boolean = () => true): Promise<boolean> {
    const runs = this.requestStop('now', which);
    await Promise.all(runs.map((r) => this.handles.get(r.id)?.stop()));
    return runs.length > 0;
  }

  /** Ends the matching runs' waits for an agent's limit now: the story runs again at once. False when none waits. */
  resumeNow(which: (run: Run<F>) => boolean = () => true): boolean {
    const runs = this.runs.all().filter((r) => which(r) && this.waits.has(r.id));
    runs.forEach((r) => this.waits.get(r.id)?.abort());
    return runs.length > 0;
  }

  private requestStop(mode: StopMode, which: (run: Run<F>) => boolean): Run<F>[] {
    const runs = this.runs.all().filter(which);
    for (const r of runs) {
      this.loops.get(r.id)?.requestStop(mode);
      this.runs.update(r.id, { stopRequested: this.loops.get(r.id)?.status.stopRequested ?? mode });
      // a run waiting out a limit has no agent to end: its wait ends and the loop stops
      this.waits.get(r.id)?.abort();
    }
    return runs;
  }

  /** Waits until the agent's limit resets (or backs off), unless a stop came first; Resume Now and Stop end it early. */
  private async waitOutLimit(runId: string, loop: LoopController, storyId: string, agent: string, limit: LimitVerdict, ended: number, agents: AgentChoice): Promise<void> {
    const wait = limitWait(limit, ended, loop.status.limitedInARow);
    agents.limitedUntil.set(agent, wait.until);
    const other = agentFreeNow(agents, this.clock.now());
    if (other !== undefined && other !== agent) {
      this.ports.log.info(`[runner] ${storyId}: ${agent} is limited until ${new Date(wait.until).toISOString()}; the next iteration runs ${other}${other === agents.configured ? '' : ' (ralph.agent.fallback)'}`);
      return;
    }
    if (loop.status.stopRequested) {
      return;
    }
    const control = new AbortController();
    this.waits.set(runId, control);
    this.runs.update(runId, { limit: { until: wait.until, agent, kind: limit.kind, source: wait.source } });
    const when = new Date(wait.until).toISOString();
    this.ports.log.info(
      `[runner] ${storyId}: rate-limited by ${agent} (${limit.message}); waiting until ${when}${wait.source === 'reset' ? ' (its reset time)' : ' (no reset time printed: backing off)'}`,
    );
    loop.limitWait(true);
    try {
      await this.clock.sleep(Math.max(0, wait.until - this.clock.now()), control.signal);
    } finally {
      loop.limitWait(false);
      this.waits.delete(runId);
      this.runs.update(runId, { limit: undefined });
    }
  }

  private async iteration(runId: string, folder: F, loop: LoopController, step: RunStep, before: PrdAnalysis, allowDirtyCheckout: boolean, agents: AgentChoice): Promise<IterationRecord> {
    const { log } = this.ports;
    const presetId = availableFallback(agents, this.clock.now());
    const prepared = await this.ports.prepare(folder, step, before, allowDirtyCheckout, presetId);
    if (presetId === undefined) {
      agents.configured = prepared.agent;
    }
    const detector = new CompleteSignalDetector();
    const tail = new OutputTail();
    const receipt = receiptReaderFor(prepared.agent);
    const started = this.clock.now();
    log.info(`[runner] iteration ${step.iteration}/${step.maxIterations}: ${step.storyId} (${prepared.agent}) in terminal "${prepared.launch.name}"`);
    const handle = this.ports.executor.start({ ...prepared.launch, onOutput: (chunk) => {
      detector.push(chunk);
      tail.push(chunk);
      receipt.push(chunk);
    } });
    this.handles.set(runId, handle);
    const run = this.runs.get(runId);
    if (run) {
      // before the change is told, so that listeners see the new agent with it
      this.ports.agentStarted?.(run, handle, prepared.promptFile);
    }
    this.runs.update(runId, { phase: 'running', storyId: step.storyId, storyTitle: step.storyTitle, iteration: step.iteration, iterationStartedAt: started });
    let exit;
    try {
      exit = await handle.exit;
    } finally {
      handle.dispose();
      this.handles.delete(runId);
    }
    const ended = this.clock.now();
    const now = this.runs.get(runId);
    if (now) {
      this.ports.agentEnded?.(now, handle, prepared.promptFile);
    }

    const after = await this.ports.read(folder);
    const { commits, uncommitted } = await prepared.observe();
    const { record, line, limit } = completeIteration(loop, {
      storyId: step.storyId,
      storyTitle: step.storyTitle,
      agent: prepared.agent,
      started,
      ended,
      exitCode: exit.exitCode ?? null,
      stopped: exit.stopped,
      completeSignal: detector.seen,
      before,
      after,
      commits,
      uncommitted,
      promptFile: prepared.promptFile,
      iteration: step.iteration,
      loopId: runId,
      output: tail.value,
      timeZone: this.ports.timeZone ?? localTimeZone(),
      // Without shell integration the terminal's output cannot be read: no receipt either way.
      receipt: exit.via === 'exit-file' ? undefined : receipt.end(),
    });
    await this.ports.record(folder, line, after);
    if (line.uncommitted) {
      log.warn(`[runner] ${step.storyId}: the agent left uncommitted changes: ${fewPaths(line.uncommitted)}`);
    }
    log.info(`[runner] ${step.storyId}: ${record.outcome}, exit ${exit.exitCode ?? '?'} (${exit.via}), ${ended - started} ms`);
    for (const note of record.notes) {
      log.info(`[runner] ${note}`);
    }
    this.ports.recorded?.(folder, record);
    // once the breaker trips the loop stops (its next step says why): no wait before it
    if (limit && !loop.limitBreakerTripped) {
      await this.waitOutLimit(runId, loop, step.storyId, prepared.agent, limit, ended, agents);
    }
    return record;
  }
}
