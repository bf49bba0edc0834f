// Starts a real VS Code (the VS Code server and web workbench shipped in the code-server npm
// package) on 127.0.0.1, opens it in headless Chromium through playwright-core, and cleans up
// after itself. Used by scripts/test.mjs (extension-host and UI tiers), scripts/start.mjs and the
// UI suites in test/ui. See /work/shared/notes/real-vscode-in-tests.md for the recipe.
//
// Everything this module starts or creates (server process group, browsers, temp dirs) is
// registered for cleanup, which runs on normal exit, on errors, and on SIGINT/SIGTERM.
//
// Environment:
//   RALPH_TEST_HOST_DIR   cache folder of the test host (default ~/.cache/ralph-workbench/test-host)
//   RALPH_CHROMIUM        Chromium executable (default /usr/bin/chromium)
//   RALPH_KEEP_TEMP=1     keep temp dirs (workspace copy, user data, server logs) for debugging
//   RALPH_SERVER_LOG=1    echo the VS Code server's own output
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of this repository (the extension's development path). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const hostDir = process.env.RALPH_TEST_HOST_DIR || path.join(os.homedir(), '.cache', 'ralph-workbench', 'test-host');
export const CODE_SERVER_VERSION = '4.139.1';
export const node24 = path.join(hostDir, 'node24', 'node_modules', 'node', 'bin', 'node');
export const codeServerDir = path.join(hostDir, 'vscode', 'node_modules', 'code-server');
export const serverMain = path.join(codeServerDir, 'lib', 'vscode', 'out', 'server-main.js');
export const chromiumPath = process.env.RALPH_CHROMIUM || '/usr/bin/chromium';
const stamp = path.join(hostDir, `.installed-code-server-${CODE_SERVER_VERSION}`);
const keepTemp = process.env.RALPH_KEEP_TEMP === '1';

/** Settings written to every test profile; callers add or override keys. */
export const defaultSettings = Object.freeze({
  'security.workspace.trust.enabled': false,
  'workbench.startupEditor': 'none',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.tips.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.layoutControl.enabled': false,
  'workbench.enableExperiments': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'chat.disableAIFeatures': true,
  'github.gitAuthentication': false,
  'git.autofetch': false,
  'git.openRepositoryInParentFolders': 'never',
  'json.schemaDownload.enable': false,
  'npm.fetchOnlinePackageInfo': false,
  'typescript.disableAutomaticTypeAcquisition': true,
  'editor.accessibilitySupport': 'off',
  'files.simpleDialog.enable': true,
});

/**
 * Settings for a session on the demo workspace: its sources have no node_modules (they are there
 * for agents to read and change), so TypeScript/JavaScript validation would fill Problems with
 * "Cannot find module" errors that say nothing about Ralph. Used by npm start and the UI tests.
 */
export const demoSettings = Object.freeze({
  'typescript.validate.enable': false,
  'javascript.validate.enable': false,
});

// ---------------------------------------------------------------------------------------------
// Cleanup registry

/** @typedef {{ name: string, sync?: () => void, async?: () => Promise<void> }} CleanupEntry */
/** @type {Set<CleanupEntry>} */
const cleanups = new Set();
let handlersInstalled = false;
let exiting = false;

function installHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', () => runSyncCleanups());
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (exiting) return;
      exiting = true;
      process.stderr.write(`\n[vscode-host] ${signal}: cleaning up\n`);
      const code = signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 129;
      const timer = setTimeout(() => process.exit(code), 5000);
      timer.unref();
      cleanupAll().finally(() => process.exit(code));
    });
  }
}

function runSyncCleanups() {
  for (const entry of [...cleanups].reverse()) {
    try {
      entry.sync?.();
    } catch {
      // best effort while exiting
    }
    cleanups.delete(entry);
  }
}

/**
 * Registers something to undo at the latest when the process ends. `sync` must be safe to call
 * from the 'exit' event (no promises); `async` is preferred by cleanupAll().
 * @param {CleanupEntry} entry
 * @returns {() => void} unregister
 */
export function onCleanup(entry) {
  installHandlers();
  cleanups.add(entry);
  return () => cleanups.delete(entry);
}

/** True once a signal started the shutdown (a dying server is then expected). */
export function isShuttingDown() {
  return exiting;
}

/** Runs every registered cleanup now (latest first). */
export async function cleanupAll() {
  for (const entry of [...cleanups].reverse()) {
    cleanups.delete(entry);
    try {
      if (entry.async) await entry.async();
      else entry.sync?.();
    } catch (err) {
      process.stderr.write(`[vscode-host] cleanup of ${entry.name} failed: ${err}\n`);
      try {
        entry.sync?.();
      } catch {
        // ignore
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Install

export function isTestHostInstalled() {
  return existsSync(stamp) && existsSync(serverMain) && existsSync(node24) && existsSync(chromiumPath);
}

/**
 * Runs scripts/setup-test-host.sh when the test host (Node 24 + code-server + Chromium) is
 * missing. It installs Debian packages when root, otherwise says what to install and fails.
 */
export function ensureTestHost({ quiet = false } = {}) {
  if (isTestHostInstalled()) return;
  if (!quiet) process.stderr.write(`[vscode-host] test host missing in ${hostDir}; running scripts/setup-test-host.sh\n`);
  const r = spawnSync('bash', [path.join(repoRoot, 'scripts', 'setup-test-host.sh')], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: process.env,
  });
  if (r.status !== 0 || !isTestHostInstalled()) {
    throw new Error(
      `scripts/setup-test-host.sh failed (exit ${r.status ?? r.signal}); the extension-host and UI tests need ` +
        `${serverMain}, ${node24} and ${chromiumPath}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Ports, temp dirs, workspaces

/**
 * A TCP port on 127.0.0.1 that was free a moment ago; `preferred` is used when it is free. The
 * port is released before the caller binds it, so another process may take it meanwhile: the
 * VS Code server is therefore started on port 0 (or the preferred port) and reports the port it
 * bound (startServer), and this is only for callers that can retry.
 */
export async function findFreePort(preferred) {
  const tryListen = (port) =>
    new Promise((resolve) => {
      const srv = net.createServer();
      srv.unref();
      srv.once('error', () => resolve(undefined));
      srv.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
        const addr = srv.address();
        srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : undefined));
      });
    });
  if (preferred) {
    const p = await tryListen(Number(preferred));
    if (p) return p;
  }
  const p = await tryListen(0);
  if (!p) throw new Error('could not find a free TCP port on 127.0.0.1');
  return p;
}

/** A new temp dir, removed at cleanup (unless RALPH_KEEP_TEMP=1). */
export function makeTempDir(prefix = 'ralph-test-') {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  if (!keepTemp) {
    onCleanup({ name: `temp dir ${dir}`, sync: () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }) });
  } else {
    process.stderr.write(`[vscode-host] keeping ${dir}\n`);
  }
  return dir;
}

/**
 * Copies a fixture folder (e.g. examples/demo) to `dest` (default: a new temp dir that is
 * removed at cleanup) and makes it a git repository with one commit, like a real project.
 * @returns {string} absolute path of the copy
 */
export function copyFixture(fixture, { dest, git = true, name = path.basename(fixture) } = {}) {
  const src = path.resolve(repoRoot, fixture);
  if (!existsSync(src)) throw new Error(`fixture folder not found: ${src}`);
  const target = dest ?? path.join(makeTempDir('ralph-ws-'), name);
  mkdirSync(target, { recursive: true });
  cpSync(src, target, { recursive: true });
  if (git) initGitRepo(target);
  return target;
}

function initGitRepo(dir) {
  const git = (...args) =>
    execFileSync('git', ['-c', 'user.name=Ralph Test', '-c', 'user.email=ralph-test@example.invalid', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args], {
      cwd: dir,
      stdio: 'ignore',
    });
  try {
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'fixture');
  } catch {
    // git is optional realism; the tests do not depend on it
  }
}

// ---------------------------------------------------------------------------------------------
// Server

function httpStatus(url, timeoutMs = 2000) {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts the VS Code server (server-main.js under Node 24) in its own process group.
 * @param {{ port?: number, preferredPort?: number, settings?: Record<string, unknown>,
 *   dataDir?: string, env?: Record<string, string>, extraArgs?: string[],
 *   startTimeoutMs?: number }} [options]
 */
export async function startServer(options = {}) {
  ensureTestHost();
  // Port 0: the server binds a free port itself and prints it (no window between choosing and
  // binding). A preferred port is tried first when it looks free; if it is taken by the time the
  // server binds it, the server exits and we retry on port 0.
  const requested = options.port ?? (options.preferredPort && (await findFreePort(options.preferredPort)) === Number(options.preferredPort) ? Number(options.preferredPort) : 0);
  const dataDir = options.dataDir ?? makeTempDir('ralph-vscode-');
  const userDataDir = path.join(dataDir, 'user-data');
  const serverDataDir = path.join(dataDir, 'server-data');
  const extensionsDir = path.join(dataDir, 'extensions');
  for (const d of [path.join(userDataDir, 'User'), serverDataDir, extensionsDir]) mkdirSync(d, { recursive: true });
  // Extensions installed as a user's VS Code has them (a folder per extension in the extensions dir).
  for (const ext of options.installed ?? []) symlinkSync(ext, path.join(extensionsDir, path.basename(ext)), 'dir');
  const settings = { ...defaultSettings, ...(options.settings ?? {}) };
  const settingsJson = `${JSON.stringify(settings, null, 2)}\n`;
  // The web workbench reads its settings from the user-data dir; the remote (server) side from
  // the server-data dir. Write both so the extension host sees the same values.
  writeFileSync(path.join(userDataDir, 'User', 'settings.json'), settingsJson);
  mkdirSync(path.join(serverDataDir, 'data', 'Machine'), { recursive: true });
  writeFileSync(path.join(serverDataDir, 'data', 'Machine', 'settings.json'), settingsJson);

  const args = [
    serverMain,
    '--host', '127.0.0.1',
    '--port', '0',
    '--without-connection-token',
    '--accept-server-license-terms',
    // The smoke-test driver makes the web workbench honour the development options of the URL's
    // payload (extensionDevelopmentPath, extensionTestsPath) but also hides every notification:
    // tests need it; `npm start` (options.installed) does not use it.
    ...(options.installed ? [] : ['--enable-smoke-test-driver']),
    '--disable-telemetry',
    '--disable-update-check',
    '--user-data-dir', userDataDir,
    '--server-data-dir', serverDataDir,
    '--extensions-dir', extensionsDir,
    ...(options.extraArgs ?? []),
  ];
  // Sockets and scratch files the server and its extensions create go into the data dir.
  const tmpDir = path.join(dataDir, 'tmp');
  mkdirSync(tmpDir, { recursive: true });
  const env = { ...process.env, TMPDIR: tmpDir, ...(options.env ?? {}) };
  // The server must not inherit npm/Node settings meant for this repo's Node 20.
  delete env.NODE_OPTIONS;
  delete env.ELECTRON_RUN_AS_NODE;
  const portArg = args.indexOf('--port') + 1;
  args[portArg] = String(requested);
  const child = spawn(node24, args, { cwd: dataDir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid;
  if (!pid) throw new Error(`could not start ${node24}`);
  /** @type {string[]} */
  const lines = [];
  const echo = process.env.RALPH_SERVER_LOG === '1';
  /** The port the server reports it listens on ("Extension host agent listening on <port>"). */
  let boundPort = 0;
  const collect = (chunk) => {
    const text = chunk.toString();
    const m = /Extension host agent listening on (\d+)/.exec(text);
    if (m) boundPort = Number(m[1]);
    if (echo) process.stderr.write(text.replace(/^/gm, '[server] '));
    for (const line of text.split(/\r?\n/)) if (line) lines.push(line);
    if (lines.length > 400) lines.splice(0, lines.length - 400);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  let exited = null;
  const exitPromise = new Promise((resolve) => child.once('exit', (code, signal) => resolve((exited = { code, signal }))));

  const stop = async () => {
    unregister();
    if (groupAlive(pid)) {
      killGroup(pid, 'SIGTERM');
      const deadline = Date.now() + 3000;
      while (groupAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (groupAlive(pid)) killGroup(pid, 'SIGKILL');
    }
  };
  const unregister = onCleanup({ name: `VS Code server (pid ${pid}, port ${requested || 'chosen by the server'})`, sync: () => killGroup(pid, 'SIGKILL'), async: stop });

  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const started = Date.now();
  for (;;) {
    if (exited) {
      await stop();
      if (requested !== 0 && options.port === undefined && lines.some((l) => l.includes('EADDRINUSE'))) {
        // The preferred port was taken between the check and the bind: start again on port 0.
        return startServer({ ...options, preferredPort: undefined, dataDir });
      }
      throw new Error(`VS Code server exited (${exited.code ?? exited.signal}) before answering on port ${requested || '(chosen by the server)'}; its log:\n${lines.join('\n')}`);
    }
    // Only the port this server reports: never another process that happens to answer.
    if (boundPort > 0) {
      const status = await httpStatus(`http://127.0.0.1:${boundPort}/version`);
      if (status > 0 && status < 500) break;
    }
    if (Date.now() - started > timeoutMs) {
      await stop();
      throw new Error(`VS Code server did not answer within ${Math.round(timeoutMs / 1000)} s (port ${boundPort || requested || 'not reported yet'}); its log:\n${lines.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  const port = boundPort;
  const origin = `http://127.0.0.1:${port}`;
  return {
    port,
    origin,
    pid,
    dataDir,
    userDataDir,
    serverDataDir,
    /** The last lines of the server's output. */
    log: () => lines.join('\n'),
    exited: exitPromise,
    stop,
  };
}

/**
 * The workbench URL that opens `folder` with the extension at `extensionDevelopmentPath`
 * loaded, and runs `extensionTestsPath` (a module exporting run(), path without .js) if given.
 */
export function workbenchUrl({ port, folder, extensionDevelopmentPath = repoRoot, extensionTestsPath, skipWelcome = true }) {
  const authority = `127.0.0.1:${port}`;
  const payload = [];
  if (extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', `vscode-remote://${authority}${path.resolve(extensionDevelopmentPath)}`]);
  if (extensionTestsPath) payload.push(['extensionTestsPath', `vscode-remote://${authority}${path.resolve(extensionTestsPath).replace(/\.js$/, '')}`]);
  if (skipWelcome) payload.push(['skipWelcome', 'true']);
  const query = [];
  if (folder) query.push(`folder=${encodeURIComponent(path.resolve(folder)).replace(/%2F/g, '/')}`);
  if (payload.length) query.push(`payload=${encodeURIComponent(JSON.stringify(payload))}`);
  return `http://${authority}/${query.length ? `?${query.join('&')}` : ''}`;
}

// ---------------------------------------------------------------------------------------------
// Browser

export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
];

/** Launches headless Chromium (closed at cleanup). */
export async function launchBrowser({ headless = true } = {}) {
  ensureTestHost();
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: chromiumPath, headless, args: chromiumArgs });
  // playwright-core also kills the browsers it launched when this process exits.
  const unregister = onCleanup({ name: 'Chromium', async: () => browser.close().catch(() => {}) });
  browser.on('disconnected', () => unregister());
  return browser;
}

/** Lines of the extension host's console that are noise in tests (no network here, etc.). */
const noise = [
  /open-vsx\.org/i,
  /ENOTFOUND|EAI_AGAIN|getaddrinfo/i,
  /service ?worker/i,
  /github-authentication|GitHub authentication/i,
  /telemetry/i,
];

export function isNoise(line) {
  return noise.some((re) => re.test(line));
}

/**
 * Starts a server and a browser and opens the workbench on `folder`.
 * @param {{ folder: string, extensionDevelopmentPath?: string, extensionTestsPath?: string,
 *   settings?: Record<string, unknown>, env?: Record<string, string>,
 *   viewport?: { width: number, height: number }, onLog?: (level: string, text: string) => void,
 *   waitForWorkbench?: boolean, installed?: string[] }} options
 * `installed`: extension folders installed as a user has them (scripts/product.mjs), without the
 * smoke-test driver, so notifications show as in `npm start`; the extension under development
 * and extensionTestsPath are then not used.
 */
export async function openWorkbench(options) {
  const server = await startServer({ settings: options.settings, env: options.env, installed: options.installed });
  let browser;
  try {
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: options.viewport ?? { width: 1400, height: 900 } });
    const page = await context.newPage();
    /** @type {(code: number) => void} */
    let resolveExit = () => {};
    /** @type {Promise<number>} */
    const exit = new Promise((resolve) => (resolveExit = resolve));
    /** @type {{ relativePath: string, contents: string }[]} */
    let exitLogs = [];
    await page.exposeFunction('codeAutomationLog', (level, args) => {
      const text = Array.isArray(args) ? args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ') : String(args);
      options.onLog?.(String(level), text);
    });
    await page.exposeFunction('codeAutomationExit', (code, logs) => {
      if (Array.isArray(logs)) exitLogs = logs;
      resolveExit(Number(code));
    });
    const url = options.installed
      ? workbenchUrl({ port: server.port, folder: options.folder, extensionDevelopmentPath: null, skipWelcome: false })
      : workbenchUrl({
          port: server.port,
          folder: options.folder,
          extensionDevelopmentPath: options.extensionDevelopmentPath ?? repoRoot,
          extensionTestsPath: options.extensionTestsPath,
        });
    await page.goto(url);
    if (options.waitForWorkbench !== false) {
      await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 }).catch((err) => {
        throw new Error(`the workbench did not appear within 60 s at ${url}: ${err.message}\nserver log:\n${server.log()}`);
      });
    }
    const close = async () => {
      await browser?.close().catch(() => {});
      await server.stop();
    };
    return { server, browser, context, page, url, exit, exitLogs: () => exitLogs, close };
  } catch (err) {
    await browser?.close().catch(() => {});
    await server.stop();
    throw err;
  }
}
