/**
 * The parallel runner's waits for agents' limits (issue 21), apart so that runner.ts stays small:
 * what each story's agent last printed of its limit, the wait that leads to (a WaitSet: Resume Now
 * and Stop end it), and ralph.agent.fallback — while the configured agent is limited, the next start
 * runs the first fallback preset that is not (core/loop/agentChoice.ts, the serial engine's rule),
 * and the loop does not wait.
 */
import { type LimitVerdict, limitWait } from '../../core/insights/limits';
import { type AgentChoice, agentChoice, agentFreeNow, availableFallback } from '../../core/loop/agentChoice';
import { type Clock, WaitSet } from '../../core/loop/clock';
import type { RunnerEvent } from './runnerTypes';

export class LimitWaits {
  private readonly waits: WaitSet;
  /** What each story's agent last printed of its limit, and when it ended. */
  private readonly seen = new Map<string, { limit: LimitVerdict; ended: number; agent: string }>();
  private readonly agents: AgentChoice;

  constructor(
    clock: Clock | undefined,
    fallback: readonly string[] | undefined,
    private readonly now: () => number,
  ) {
    this.waits = new WaitSet(clock);
    this.agents = agentChoice(fallback);
  }

  /** The fallback preset the next start runs instead of the configured agent; undefined: the configured one. */
  presetFor(): string | undefined {
    return availableFallback(this.agents, this.now());
  }

  /** A story's agent ended; `presetId`: the fallback preset it ran (undefined: the configured agent). */
  ended(storyId: string, r: { readonly agent: string; readonly limit?: LimitVerdict; readonly ended: Date }, presetId: string | undefined): void {
    if (presetId === undefined && r.agent !== '') {
      this.agents.configured = r.agent;
    }
    if (r.limit) {
      this.seen.set(storyId, { limit: r.limit, ended: r.ended.getTime(), agent: r.agent });
    }
  }

  /**
   * Waits out the limit a story's agent hit (its printed reset plus a margin, or the backoff for
   * the `inARow`th limited run), unless the loop is stopping or a fallback preset may run now.
   */
  async waitOut(storyId: string, inARow: number, stopping: boolean, emit: (e: RunnerEvent) => void): Promise<void> {
    const seen = this.seen.get(storyId);
    const wait = limitWait(seen?.limit ?? {}, seen?.ended ?? this.now(), inARow);
    if (seen) {
      this.agents.limitedUntil.set(seen.agent, wait.until);
    }
    if (stopping) {
      return;
    }
    const other = agentFreeNow(this.agents, this.now());
    if (other !== undefined) {
      emit({ kind: 'note', storyId, message: `${storyId}: ${seen?.agent ?? 'the agent'} is limited until ${new Date(wait.until).toISOString()}; the next run uses ${other}${other === this.agents.configured ? '' : ' (ralph.agent.fallback)'}` });
      return;
    }
    emit({ kind: 'waiting', storyId, agent: seen?.agent ?? 'the agent', until: wait.until, source: wait.source });
    await this.waits.sleepUntil(wait.until);
  }

  /** Ends every wait now (Resume Now, Stop, the loop's end); false when none was waiting. */
  endAll(): boolean {
    return this.waits.endAll();
  }
}
