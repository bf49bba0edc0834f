/**
 * The scheduler: which story runs, and when the loop stops. The LoopController decides (its rules,
 * including the story the user picked, are in loop.ts); this driver only reads prd.json through
 * its port, asks the controller and runs exactly the step it returned. No caller changes the
 * controller's choice. Pure: every effect is a port, so the same driver serves the extension's
 * runner and, later, a headless run or a wave of runs in parallel worktrees.
 */
import type { PrdAnalysis } from '../prd/index';
import type { IterationRecord, LoopController, RunStep, StopStep } from './loop';

export interface LoopOutcome {
  readonly stop: StopStep;
  readonly iterations: readonly IterationRecord[];
}

export interface LoopPorts {
  /** prd.json as it is now (undefined: there is none). */
  read(): Promise<PrdAnalysis | undefined>;
  /**
   * Called once, when the first iteration is about to start (not when the loop stops at once),
   * with the step the controller chose and its snapshot: the preflight, before anything changes.
   * A stop step ends the loop before anything ran (the dirty-working-tree question); a throw too.
   */
  beforeFirstIteration(step: RunStep, before: PrdAnalysis): Promise<StopStep | undefined>;
  /** Runs the step the controller chose, on the snapshot it chose from, and returns the controller's record. */
  iterate(step: RunStep, before: PrdAnalysis): Promise<IterationRecord>;
  log(line: string): void;
}

/** Runs iterations until the controller says stop; resolves with why it stopped. */
export async function runLoop(loop: LoopController, ports: LoopPorts): Promise<LoopOutcome> {
  let asked = false;
  for (;;) {
    const before = await ports.read();
    const step = loop.nextStep(before);
    if (step.kind === 'stop') {
      ports.log(step.message);
      for (const d of step.details) {
        ports.log(`  ${d}`);
      }
      return { stop: step, iterations: loop.records };
    }
    if (!before) {
      // nextStep answers prd-missing for a missing file: a run step always has a snapshot
      throw new Error('The loop chose a story without a prd.json.');
    }
    if (!asked) {
      asked = true;
      const stop = await ports.beforeFirstIteration(step, before);
      if (stop) {
        ports.log(stop.message);
        return { stop, iterations: [] };
      }
    }
    await ports.iterate(step, before);
  }
}
