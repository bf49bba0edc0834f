/**
 * The text a person reads for a thrown value. VS Code's own code sometimes throws `new Error()`
 * without a message (e.g. its URI lookup given something that is not a Uri), which showed as a
 * bare "Ralph:" notification: such an error gets a message that says so and points at the log.
 */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) {
    return e.message.trim() || `an unexpected ${e.name || 'error'} without a message (see the log)`;
  }
  const s = String(e).trim();
  return s || 'an unexpected error without a message (see the log)';
}
