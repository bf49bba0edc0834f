/**
 * `ralph-workbench run --parallel 1`: one story at a time in the folder itself, as the extension's
 * serial loop runs them (issue 19: "one at a time runs as the serial loop does today"), also in a
 * folder that is not a git repository. The same engine (core/loop/engine.ts: the LoopController's
 * stop rules), preflight and preparer (node/preparer.ts: branch, archive, compaction, prompt) and
 * recorder (runs.jsonl) as the extension; here the agent is a child process whose output goes to
 * `.ralph/logs/<prompt>.log`, and a dirty working tree is refused instead of asked about.
 */
import type { WriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Budget } from '../core/insights/budget';
import { RunEngine } from '../core/loop/engine';
import type { AgentCommandPlan } from '../core/loop/iteration';
import type { StopStep } from '../core/loop/loop';
import { analyzePrd, type PrdAnalysis } from '../core/prd/index';
import { fewPaths, type RunRecord } from '../core/runs/runs';
import type { SettingValues } from '../core/settingKeys';
import { GitRepo } from '../node/gitRepo';
import { acquireRunLock, type RunLock } from '../node/parallel/runLock';
import { type FolderPrepContext, folderPreflight, prepareIteration, RunError } from '../node/preparer';
import type { AgentHandle } from '../core/loop/executor';
import { processExecutor } from '../node/processExecutor';
import { openAgentLog } from '../node/runFiles';
import { recordIteration } from '../node/runRecorder';
import { resolveInside, WorkspacePathError } from '../node/workspacePath';

export type SerialEvent =
  | { readonly kind: 'started'; readonly storyId: string; readonly storyTitle: string; readonly iteration: number; readonly maxIterations: number; readonly folder: string; readonly logFile: string }
  | { readonly kind: 'agentEnded'; readonly storyId: string; readonly outcome: RunRecord['outcome']; readonly exitCode: number | null; readonly durationMs: number }
  | { readonly kind: 'note'; readonly storyId?: string; readonly message: string }
  /** The agent hit its limit: the loop sleeps until `until` (ms since the epoch), then runs the story again. */
  | { readonly kind: 'waiting'; readonly storyId: string; readonly agent: string; readonly until: number; readonly source: 'reset' | 'backoff' }
  | { readonly kind: 'stopped'; readonly stop: StopStep };

export interface SerialRunOptions {
  readonly root: string;
  readonly settings: SettingValues;
  readonly maxIterations: number;
  /** Run this story (one iteration). */
  readonly storyId?: string;
  readonly failureLimit: number;
  readonly noProgressLimit: number;
  /** ralph.agent.maxLimitedInARow (--max-limited): rate-limited runs in a row before the loop stops (0: never). */
  readonly maxLimitedInARow?: number;
  readonly budget?: Budget;
  /** End an agent that runs longer (0: no limit); the iteration counts as a failure (exit 124, as timeout(1)). */
  readonly timeoutMs?: number;
  /** `presetId`: the fallback preset to run instead of the configured agent while it is limited. */
  planAgent(storyId: string, promptPath: string, presetId?: string): AgentCommandPlan;
  /** ralph.agent.fallback (none with a command line of the user's own). */
  readonly fallback?: readonly string[];
  onEvent(event: SerialEvent): void;
  /** A warning for the person at the terminal (stderr). */
  warn(line: string): void;
}

/** A serial loop of the CLI; `stop()` ends the running agent (the iteration is recorded as stopped). */
export class SerialRun {
  private readonly engine: RunEngine<string, AgentHandle>;
  private lock: RunLock | undefined;
  private log: { stream: WriteStream; rel: string } | undefined;
  private announced = 0;
  private announcedWait: number | undefined;

  constructor(private readonly o: SerialRunOptions) {
    const ctx: FolderPrepContext = { root: o.root, settings: o.settings, log: { info: () => undefined, warn: (line) => o.warn(line.replace(/^\[runner\] /, '')) }, planAgent: (id, prompt, presetId) => o.planAgent(id, prompt, presetId) };
    this.engine = new RunEngine<string, AgentHandle>({
      keyOf: (root) => root,
      read: () => this.read(),
      preflight: async (_root, step, before, requested) => {
        const problems = await folderPreflight(ctx, { trusted: true, scheme: 'file', folderName: path.basename(o.root), step, before, requestedStory: requested });
        if (problems.length > 0) {
          throw new RunError(problems.map((p) => p.message).join(' '));
        }
        // Nobody is there to ask: uncommitted changes would end up in the agent's commit.
        const git = await GitRepo.open(o.root);
        const dirty = git ? await git.uncommittedFiles() : [];
        if (dirty.length > 0) {
          throw new RunError(`The working tree has uncommitted changes (${fewPaths(dirty)}): the agent's commit would take them in. Commit or stash them, then run again.`);
        }
        this.lock = await acquireRunLock(o.root, 'the ralph-workbench run command').catch((e: Error) => {
          throw new RunError(e.message);
        });
        return { runAnyway: false };
      },
      prepare: async (_root, step, before, allowDirty, presetId) => {
        const prepared = await prepareIteration(ctx, step, before, allowDirty, presetId);
        const rel = `.ralph/logs/${path.basename(prepared.promptFile, '.md')}.log`;
        this.log = { stream: await openAgentLog(o.root, rel), rel };
        this.log.stream.write(`# ${step.storyId} — ${step.storyTitle}\n# folder ${o.root}\n# started ${new Date().toISOString()}\n`);
        return prepared;
      },
      executor: {
        start: (launch) => {
          const log = this.log?.stream;
          const handle = processExecutor.start({
            ...launch,
            onOutput: (chunk) => {
              log?.write(chunk);
              launch.onOutput?.(chunk);
            },
          });
          return o.timeoutMs ? withTimeLimit(handle, o.timeoutMs, () => {
            const said = `${launch.env.RALPH_STORY_ID ?? 'the story'}: its agent ran past the time limit (${minutes(o.timeoutMs ?? 0)}) and was ended; the iteration counts as a failure (exit 124).`;
            log?.write(`\n# ${said}\n`);
            o.warn(said);
          }) : handle;
        },
      },
      record: async (root, line, after) => {
        this.log?.stream.end();
        this.log = undefined;
        await recordIteration(root, line, after);
        o.onEvent({ kind: 'agentEnded', storyId: line.storyId, outcome: line.outcome, exitCode: line.exitCode, durationMs: line.durationMs });
      },
      log: { info: () => undefined, warn: (line) => o.warn(line.replace(/^\[runner\] /, '')) },
      changed: (run) => {
        if (run.limit && run.limit.until !== this.announcedWait && run.storyId !== undefined) {
          this.announcedWait = run.limit.until;
          o.onEvent({ kind: 'waiting', storyId: run.storyId, agent: run.limit.agent, until: run.limit.until, source: run.limit.source });
        }
        if (run.phase === 'running' && run.storyId !== undefined && run.iteration !== undefined && run.iteration > this.announced) {
          this.announced = run.iteration;
          o.onEvent({ kind: 'started', storyId: run.storyId, storyTitle: run.storyTitle ?? '', iteration: run.iteration, maxIterations: run.maxIterations, folder: o.root, logFile: this.log?.rel ?? '' });
        }
      },
      recorded: (_root, record) => {
        for (const note of record.notes) {
          o.onEvent({ kind: 'note', message: note });
        }
      },
    });
  }

  /** Runs the loop to its end; throws a RunError when it cannot start. */
  async run(): Promise<StopStep> {
    try {
      const outcome = await this.engine.run(this.o.root, {
        maxIterations: this.o.maxIterations,
        storyId: this.o.storyId,
        failureLimit: this.o.failureLimit,
        budget: this.o.budget,
        noProgressLimit: this.o.noProgressLimit,
        maxLimitedInARow: this.o.maxLimitedInARow,
        prdLabel: this.o.settings.prdPath,
        fallback: this.o.fallback,
      });
      this.o.onEvent({ kind: 'stopped', stop: outcome.stop });
      return outcome.stop;
    } finally {
      this.log?.stream.end();
      await this.lock?.release();
    }
  }

  /** Ends the running agent, or the wait for its limit. */
  stop(): Promise<boolean> {
    return this.engine.stopNow();
  }

  /** prd.json now (undefined: there is none); a path that leads outside the folder stops the run with the path rule's message. */
  private async read(): Promise<PrdAnalysis | undefined> {
    let file: string;
    try {
      file = await resolveInside(this.o.root, this.o.settings.prdPath, { what: 'ralph.prdPath' });
    } catch (e) {
      throw e instanceof WorkspacePathError ? new RunError(e.message) : e;
    }
    const bytes = await readFile(file).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') {
        return undefined;
      }
      throw new RunError(`${this.o.settings.prdPath} could not be read (${e.code ?? e.message}).`);
    });
    return bytes === undefined ? undefined : analyzePrd(bytes);
  }
}

/**
 * The agent, ended once it has run `ms`: its exit then reads as exit 124 (as timeout(1) reports),
 * not as the user's stop, so the failure breaker counts it and the loop goes on.
 */
function withTimeLimit(handle: AgentHandle, ms: number, onTimeout: () => void): AgentHandle {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    onTimeout();
    void handle.stop();
  }, ms);
  return {
    exit: handle.exit.then((e) => {
      clearTimeout(timer);
      return timedOut ? { ...e, exitCode: 124, stopped: false } : e;
    }),
    stop: () => {
      clearTimeout(timer);
      return handle.stop();
    },
    dispose: () => {
      clearTimeout(timer);
      handle.dispose();
    },
  };
}

/** "2 min", "90 s". */
function minutes(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}
