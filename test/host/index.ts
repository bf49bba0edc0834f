/**
 * Entry point of the extension-host test tier: VS Code loads this module (extensionTestsPath)
 * inside the extension host and calls run(), like @vscode/test-electron's sample. It runs every
 * compiled suite next to it (*.test.js) with mocha's TDD interface.
 *
 * Environment (set on the VS Code server by scripts/test.mjs; the extension host inherits it):
 *   RALPH_TEST_LOG_PREFIX  prefix for every console line, so the launcher can tell test output
 *                          from the workbench's own log lines
 *   RALPH_TEST_GREP        only run tests whose full title matches this regexp
 *   RALPH_TEST_COLOR=1     coloured mocha output
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type MochaType from 'mocha';
import * as vscode from 'vscode';
import type { RalphApi } from '../../src/api';
import { EXTENSION_ID } from './helpers';
import { log } from './log';

export const SUMMARY_MARKER = '##ralph-test-summary ';

/**
 * Root hook: a test fails when one of Ralph's commands reported an error during it (a user would
 * have seen "Ralph: …"), unless the test took that error itself (helpers.takeCommandErrors /
 * expectCommandError). Command handlers catch their errors to show them, so without this a
 * command that throws could never fail a test.
 */
export const rootHooks: MochaType.RootHookObject = {
  afterEach(this: MochaType.Context) {
    const ext = vscode.extensions.getExtension<RalphApi>(EXTENSION_ID);
    if (!ext?.isActive || typeof ext.exports?.commandErrors !== 'function') {
      return;
    }
    const errors = ext.exports.commandErrors();
    ext.exports.clearCommandErrors();
    if (errors.length > 0 && this.currentTest?.state !== 'failed') {
      throw new Error(`a Ralph command reported an error during "${this.currentTest?.fullTitle() ?? '?'}": ${errors.map((e) => `[${e.command}] ${e.message}`).join('; ')}`);
    }
  },
};

export async function run(): Promise<void> {
  // Loaded here, not at the top: nothing else needs mocha before run() is called.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Mocha = require('mocha') as typeof MochaType;
  // The extension host forwards console calls as raw arguments (format strings unapplied) and
  // does not let extensions replace console.log, so mocha's reporter gets a formatting logger.
  const base = Mocha.reporters.Base as unknown as { consoleLog: (...args: unknown[]) => void };
  base.consoleLog = (...args: unknown[]) => log(...args);

  const mocha = new Mocha({
    ui: 'tdd',
    color: process.env.RALPH_TEST_COLOR === '1',
    timeout: 30_000,
    slow: 2_000,
    grep: process.env.RALPH_TEST_GREP || undefined,
    rootHooks,
  });
  const files = fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js'))
    .sort();
  for (const f of files) {
    mocha.addFile(path.join(__dirname, f));
  }
  const stats = await new Promise<{ passes: number; failures: number; pending: number }>((resolve, reject) => {
    try {
      const runner = mocha.run(() => {
        const s = runner.stats ?? { passes: 0, failures: 0, pending: 0 };
        resolve({ passes: s.passes, failures: s.failures, pending: s.pending });
      });
    } catch (err) {
      reject(err);
    }
  });
  log(SUMMARY_MARKER + JSON.stringify(stats));
  if (stats.failures > 0) {
    throw new Error(`${stats.failures} extension-host test${stats.failures === 1 ? '' : 's'} failed`);
  }
}
