#!/usr/bin/env node
// npm run test:electron: the extension-host suites (test/host) in DESKTOP VS Code through
// @vscode/test-electron, for machines that can download VS Code or have it installed.
// (Machines without internet use `npm run test:host`, which runs the same suites in the VS Code
// server from the code-server package.)
// Environment:
//   VSCODE_EXECUTABLE   path of an installed VS Code (code / Code.exe / Electron binary) to use
//                       instead of downloading one
//   VSCODE_VERSION      version to download (default: latest stable)
//   RALPH_TEST_GREP     only tests whose title matches this regexp
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildHostTests } from './build-tests.mjs';
import { copyFixture, repoRoot } from './vscode-host.mjs';

const t0 = Date.now();
if (process.env.VSCODE_EXECUTABLE && !existsSync(process.env.VSCODE_EXECUTABLE)) {
  console.error(`[test:electron] VSCODE_EXECUTABLE does not exist: ${process.env.VSCODE_EXECUTABLE}`);
  process.exit(1);
}
const build = spawnSync('npm', ['run', 'build'], { cwd: repoRoot, stdio: 'inherit' });
if (build.status !== 0) {
  console.error('[test:electron] npm run build failed');
  process.exit(1);
}
const extensionTestsPath = await buildHostTests();

const { runTests } = await import('@vscode/test-electron');
const workspace = copyFixture('examples/demo');
const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'ralph-electron-ud-'));
const extensionsDir = path.join(userDataDir, 'extensions');
mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
writeFileSync(
  path.join(userDataDir, 'User', 'settings.json'),
  JSON.stringify({ 'security.workspace.trust.enabled': false, 'workbench.startupEditor': 'none', 'extensions.autoCheckUpdates': false, 'telemetry.telemetryLevel': 'off', 'update.mode': 'none', 'chat.disableAIFeatures': true }, null, 2),
);

let code = 1;
try {
  code = await runTests({
    extensionDevelopmentPath: repoRoot,
    extensionTestsPath,
    ...(process.env.VSCODE_EXECUTABLE ? { vscodeExecutablePath: process.env.VSCODE_EXECUTABLE } : {}),
    ...(process.env.VSCODE_VERSION ? { version: process.env.VSCODE_VERSION } : {}),
    launchArgs: [workspace, '--disable-extensions', '--skip-welcome', '--skip-release-notes', '--disable-workspace-trust', `--user-data-dir=${userDataDir}`, `--extensions-dir=${extensionsDir}`],
    extensionTestsEnv: {
      ...(process.env.RALPH_TEST_GREP ? { RALPH_TEST_GREP: process.env.RALPH_TEST_GREP } : {}),
      RALPH_TEST_COLOR: process.stdout.isTTY ? '1' : '0',
    },
  });
} catch (err) {
  const message = err instanceof Error ? err.message : String(err);
  if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|getaddrinfo|network/i.test(message)) {
    console.error(
      `\n[test:electron] could not download VS Code (${message.split('\n')[0]}).\n` +
        '  This machine cannot reach update.code.visualstudio.com. Either set VSCODE_EXECUTABLE to an installed\n' +
        '  VS Code, or run the same suites in the VS Code server from the npm registry: npm run test:host',
    );
  } else {
    console.error(`\n[test:electron] ${message}`);
  }
  code = 1;
} finally {
  rmSync(userDataDir, { recursive: true, force: true, maxRetries: 3 });
}
console.log(`[test:electron] ${code === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exit(code);
