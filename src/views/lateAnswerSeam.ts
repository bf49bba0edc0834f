/**
 * Test-only seam (test build only): makes one answer to a page arrive late, so a UI test can show
 * that the page does not take a late answer for the current one. The environment variable
 * RALPH_TEST_LATE_ANSWER (`{"type":"details","id":"US-008"}`) names an answer by its message type
 * and story id: the first such answer is held back and posted right after the next answer of the
 * same type about the same story — an ordering, not a timer, so the test waits on nothing.
 */

/** Holds answers back while the seam asks for it; `send` posts one answer now. */
export interface LateAnswers {
  /** Posts `message` (and, after it, any answer it releases), or holds it back. */
  route(message: unknown, send: (message: unknown) => void): void;
}

interface Target {
  readonly type: string;
  readonly id: string;
}

/** The seam when the test build and the environment ask for it, else undefined (answers go out at once). */
export function lateAnswersFromEnv(): LateAnswers | undefined {
  if (!__RALPH_TEST__) {
    return undefined;
  }
  // Named here, inside the test-build branch, so the production bundle does not even hold the name.
  const raw = process.env.RALPH_TEST_LATE_ANSWER;
  if (!raw) {
    return undefined;
  }
  try {
    const v = JSON.parse(raw) as { type?: unknown; id?: unknown };
    return typeof v.type === 'string' && typeof v.id === 'string' ? holdFirst({ type: v.type, id: v.id }) : undefined;
  } catch {
    return undefined; // not JSON: ignored
  }
}

function holdFirst(target: Target): LateAnswers {
  let state: 'waiting' | 'holding' | 'done' = 'waiting';
  let held: (() => void) | undefined;
  const matches = (m: unknown): boolean => typeof m === 'object' && m !== null && (m as Target).type === target.type && (m as Target).id === target.id;
  return {
    route(message, send) {
      if (state === 'done' || !matches(message)) {
        send(message);
      } else if (state === 'waiting') {
        state = 'holding';
        held = () => send(message);
      } else {
        send(message);
        state = 'done';
        held?.();
        held = undefined;
      }
    },
  };
}
