#!/usr/bin/env node
// npm start: builds the extension and serves a real VS Code (web) with it installed (the
// production build, as a user's VS Code loads it: scripts/product.mjs) on a working copy of the
// demo workspace, with a local stand-in for GitHub that serves the demo's two recorded issues
// (scripts/demo-github.mjs; no token, nothing sent to github.com). Open the printed URL in a
// browser; Ctrl-C stops everything.
// Environment:
//   PORT               port to listen on (default 8765; another free port if it is taken)
//   RALPH_DEMO_DIR     the working copy (default ~/.cache/ralph-workbench/demo-workspace)
//   RALPH_START_FOLDER open this folder instead of the demo working copy
//   RALPH_TEST_HOST_DIR where the test host is installed (default ~/.cache/ralph-workbench/test-host)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDemoGitHub } from './demo-github.mjs';
import { stageProductExtension } from './product.mjs';
import { copyFixture, demoSettings, ensureTestHost, isShuttingDown, repoRoot, startServer, workbenchUrl } from './vscode-host.mjs';

const DEFAULT_PORT = 8765;

function fail(message) {
  console.error(`\n[start] ${message}`);
  process.exit(1);
}

const build = spawnSync('npm', ['run', 'build'], { cwd: repoRoot, stdio: 'inherit' });
if (build.status !== 0) fail('npm run build failed; fix the errors above and run npm start again.');

try {
  ensureTestHost();
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}

let folder;
if (process.env.RALPH_START_FOLDER) {
  folder = path.resolve(process.env.RALPH_START_FOLDER);
  if (!existsSync(folder)) fail(`RALPH_START_FOLDER does not exist: ${folder}`);
} else {
  folder = process.env.RALPH_DEMO_DIR
    ? path.resolve(process.env.RALPH_DEMO_DIR)
    : path.join(os.homedir(), '.cache', 'ralph-workbench', 'demo-workspace');
  if (!existsSync(folder)) {
    copyFixture('examples/demo', { dest: folder });
    console.log(`[start] copied examples/demo to ${folder} (your working copy: edit it freely; delete it to start over)`);
  } else {
    console.log(`[start] using the demo working copy in ${folder} (delete it to start over from examples/demo)`);
  }
}

const preferred = Number(process.env.PORT || DEFAULT_PORT);
let server;
let extension;
let github;
try {
  // The product as a user gets it: the production build, installed in the server's extensions
  // folder (notifications show; no test seams).
  extension = await stageProductExtension();
  // The demo's Issues view reads a local stand-in for GitHub (loopback only; it stops with this process).
  github = process.env.RALPH_START_FOLDER ? undefined : await startDemoGitHub();
  // The demo opens clean: no TypeScript errors for its node_modules-less sources (README).
  server = await startServer({ preferredPort: preferred, settings: github ? { ...demoSettings, ...github.settings } : {}, installed: [extension] });
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
if (server.port !== preferred) console.log(`[start] port ${preferred} is taken; using ${server.port}`);

const url = workbenchUrl({ port: server.port, folder, extensionDevelopmentPath: null, skipWelcome: false });
const line = '═'.repeat(72);
console.log(`\n${line}\n  Ralph Workbench is running in VS Code (web). Open this URL in your browser:\n\n  ${url}\n\n  Workspace: ${folder}\n  Extension: ${extension} (the production build of ${repoRoot}; after a change, run npm start again)\n${github ? `  GitHub: a stand-in at ${github.gh.apiUrl} serving the demo's recorded issues #42 and #43\n  (examples/demo-github.json; no token, nothing is sent to github.com)\n` : ''}  Stop with Ctrl-C.\n${line}\n`);

server.exited.then(async (e) => {
  await github?.gh.stop();
  if (isShuttingDown()) return;
  console.error(`[start] the VS Code server exited (${e.code ?? e.signal}); its last output:\n${server.log()}`);
  process.exit(1);
});
// Keep running until a signal; vscode-host.mjs stops the server and removes temp dirs then.
setInterval(() => {}, 1 << 30);
