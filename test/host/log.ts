import * as util from 'node:util';

/**
 * Prints a line of test output. Use it instead of console.log in the suites: the extension host
 * forwards console.log's raw arguments without applying format strings, and under
 * scripts/test.mjs each line carries RALPH_TEST_LOG_PREFIX so the launcher can tell test output
 * from the workbench's own log lines.
 */
export function log(...args: unknown[]): void {
  const prefix = process.env.RALPH_TEST_LOG_PREFIX ?? '';
  const text = util.format(...args);
  console.log(prefix ? text.split('\n').map((l) => prefix + l).join('\n') : text);
}
