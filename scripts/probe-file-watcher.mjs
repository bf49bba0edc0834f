// How often VS Code's own recursive file watcher (@parcel/watcher, as the test host's VS Code
// server bundles it) misses what src/services/workspaceWatch.ts works around, on this machine:
//   node scripts/probe-file-watcher.mjs [--rounds N]
// 1. a file written right after its folder was made (parcel-bundler/watcher#243);
// 2. a file written 300 ms after `mkdir -p a/b/c`, in a/b/c (parcel-bundler/watcher#97).
// Needs the test host (bash scripts/setup-test-host.sh). Prints the counts; exits 0 either way.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { codeServerDir } from './vscode-host.mjs';

const roundsAt = process.argv.indexOf('--rounds');
const ROUNDS = roundsAt > 0 ? Math.max(1, Number(process.argv[roundsAt + 1]) || 30) : 30;
const require = createRequire(import.meta.url);
const watcher = require(path.join(codeServerDir, 'lib', 'vscode', 'node_modules', '@parcel', 'watcher'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const root = mkdtempSync(path.join(os.tmpdir(), 'ralph-watch-probe-'));
const seen = [];
const sub = await watcher.subscribe(root, (err, events) => {
  if (!err) seen.push(...events.map((e) => path.relative(root, e.path)));
});
let missedAtOnce = 0;
for (let i = 0; i < ROUNDS; i++) {
  mkdirSync(path.join(root, `now${i}`));
  writeFileSync(path.join(root, `now${i}`, 'runs.jsonl'), 'x\n');
  await sleep(500);
  if (!seen.includes(path.join(`now${i}`, 'runs.jsonl'))) missedAtOnce++;
}
let missedBelow = 0;
for (let i = 0; i < ROUNDS; i++) {
  mkdirSync(path.join(root, `deep${i}`, 'b', 'c'), { recursive: true });
  await sleep(300);
  writeFileSync(path.join(root, `deep${i}`, 'b', 'c', 'prd.json'), '{}\n');
  await sleep(300);
  if (!seen.includes(path.join(`deep${i}`, 'b', 'c', 'prd.json'))) missedBelow++;
}
await sub.unsubscribe();
rmSync(root, { recursive: true, force: true });
console.log(`VS Code's @parcel/watcher on ${os.platform()}, ${ROUNDS} rounds:`);
console.log(`  a file written right after its folder: missed ${missedAtOnce} of ${ROUNDS}`);
console.log(`  a file written 300 ms after mkdir -p a/b/c, in a/b/c: missed ${missedBelow} of ${ROUNDS}`);
