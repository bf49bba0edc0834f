#!/usr/bin/env node
// Runs before `npm start` and `npm test` (npm's prestart/pretest hooks): installs the npm
// dependencies with `npm ci` when node_modules is missing or older than package-lock.json, so the
// README's two commands work on a fresh clone. Uses only Node's built-in modules.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lock = path.join(root, 'package-lock.json');
const installed = path.join(root, 'node_modules', '.package-lock.json');

const stale = !existsSync(installed) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(installed).mtimeMs + 1000);
if (stale) {
  console.log('[setup] installing npm dependencies (npm ci)…');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) {
    console.error('[setup] npm ci failed; see the output above.');
    process.exit(r.status ?? 1);
  }
}
