/**
 * ralph.agent.fallback (issue 21): while the configured agent is at its usage or rate limit, the
 * next run uses the first preset of the fallback list that is not; when none may run, the loop
 * waits for the limit. One rule for the serial engine (engine.ts) and the parallel runner
 * (node/parallel/limitWaits.ts).
 */

/** The agents a loop may use: the configured one (known after its first run), the fallback presets, and until when each is limited. */
export interface AgentChoice {
  configured?: string;
  readonly fallback: readonly string[];
  /** ms since the epoch, per agent. */
  readonly limitedUntil: Map<string, number>;
}

export function agentChoice(fallback: readonly string[] | undefined): AgentChoice {
  return { fallback: fallback ?? [], limitedUntil: new Map() };
}

/**
 * The preset to run instead of the configured agent: the first of the fallback list that is not
 * limited, while the configured one is; undefined when the configured agent may run (or none may).
 */
export function availableFallback(a: AgentChoice, now: number): string | undefined {
  const free = (agent: string): boolean => (a.limitedUntil.get(agent) ?? 0) <= now;
  if (a.configured === undefined || free(a.configured)) {
    return undefined;
  }
  return a.fallback.find((p) => p !== a.configured && free(p));
}

/**
 * The agent that may run now, if any: the configured one when it is not limited, else the first
 * fallback that is not. A limit hit by a fallback while the configured agent is free again needs no
 * wait (the next run is the configured agent's); undefined: every allowed agent is limited.
 */
export function agentFreeNow(a: AgentChoice, now: number): string | undefined {
  if (a.configured !== undefined && (a.limitedUntil.get(a.configured) ?? 0) <= now) {
    return a.configured;
  }
  return availableFallback(a, now);
}
