/**
 * Runs as objects: each loop (or single run) is a `Run` with its own id, held in a `RunSet` rather
 * than in module-level "current run" state, so several can exist at once (one per workspace folder
 * today; the wave of parallel worktrees later). A Run is immutable: every change makes a new one
 * and tells the listener, which is how the views learn about it.
 */
import type { LimitKind } from '../insights/limits';
import type { StopMode } from './loop';

export type RunPhase = 'starting' | 'running' | 'finished';

export interface Run<F> {
  /** Unique among the runs of this set; also the loop id of its runs.jsonl lines. */
  readonly id: string;
  readonly folder: F;
  readonly phase: RunPhase;
  readonly maxIterations: number;
  /** 0 until the first iteration starts. */
  readonly iteration: number;
  readonly storyId?: string;
  readonly storyTitle?: string;
  /** Start of the running iteration (ms since the epoch). */
  readonly iterationStartedAt?: number;
  readonly stopRequested?: StopMode;
  /** While the run waits out its agent's limit: until when (ms since the epoch), which agent, what limit, and whether the agent printed the time. */
  readonly limit?: RunLimitWait;
}

export interface RunLimitWait {
  readonly until: number;
  readonly agent: string;
  readonly kind: LimitKind;
  readonly source: 'reset' | 'backoff';
}

/** The user rule: one run per folder at a time. */
export class RunBusyError extends Error {
  constructor(readonly run: Run<unknown>) {
    super(`An agent is already running${run.storyId ? ` (${run.storyId})` : ''}. Stop it first, or wait for it to finish.`);
  }
}

export class RunSet<F> {
  private readonly runs = new Map<string, Run<F>>();
  private readonly ids = new Set<string>();

  constructor(
    /** The folder's identity (its URI as a string): at most one run per key. */
    private readonly keyOf: (folder: F) => string,
    /** Told about every new, changed or ended run (ended: phase 'finished', no longer in the set). */
    private readonly onChange: (run: Run<F>) => void = () => undefined,
  ) {}

  /** Starts a run in a folder; throws RunBusyError while another runs there. */
  start(folder: F, maxIterations: number, now: Date): Run<F> {
    const busy = this.inFolder(folder);
    if (busy) {
      throw new RunBusyError(busy);
    }
    const run: Run<F> = { id: this.newId(now), folder, phase: 'starting', maxIterations, iteration: 0 };
    this.runs.set(run.id, run);
    this.onChange(run);
    return run;
  }

  /** Changes a run that is still in the set; returns the new one (undefined once it ended). */
  update(id: string, change: Partial<Omit<Run<F>, 'id' | 'folder'>>): Run<F> | undefined {
    const old = this.runs.get(id);
    if (!old) {
      return undefined;
    }
    const run: Run<F> = { ...old, ...change };
    this.runs.set(id, run);
    this.onChange(run);
    return run;
  }

  end(id: string): void {
    const run = this.runs.get(id);
    if (run) {
      this.runs.delete(id);
      this.onChange({ ...run, phase: 'finished' });
    }
  }

  get(id: string): Run<F> | undefined {
    return this.runs.get(id);
  }

  /** The runs that have not ended, oldest first. */
  all(): Run<F>[] {
    return [...this.runs.values()];
  }

  inFolder(folder: F): Run<F> | undefined {
    const key = this.keyOf(folder);
    return this.all().find((r) => this.keyOf(r.folder) === key);
  }

  /** The start time (as the loop ids before runs had objects), made unique within this set. */
  private newId(now: Date): string {
    const base = now.toISOString();
    let id = base;
    for (let n = 2; this.ids.has(id); n++) {
      id = `${base}#${n}`;
    }
    this.ids.add(id);
    return id;
  }
}
