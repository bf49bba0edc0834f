/**
 * Unhandled promise rejections seen while a mocha suite runs: call it in the `describe` body (it
 * registers the suite's before/after hooks) and assert the array is empty after each test.
 */
export function recordUnhandledRejections(): unknown[] {
  const seen: unknown[] = [];
  const onUnhandled = (e: unknown): void => {
    seen.push(e);
  };
  before(() => process.on('unhandledRejection', onUnhandled));
  after(() => process.off('unhandledRejection', onUnhandled));
  return seen;
}
