// Benchmark of the GitHub client's issue-20 surface against the project's GitHub test server
// (test/support/githubEmulator.ts on 127.0.0.1, loaded with tsx): counts first, times beside a
// baseline measured in the same run.
//   node scripts/bench-github-client.mjs [--issues N] [--writes N]
// Figures: requests to list N labelled issues (pages of 100) fresh, then again (every page a
// 304), and the time of the cached listing beside the fresh one (the 304 pages are checked by
// their schema again); N writes at writeIntervalMs 20: the smallest gap between two writes as
// the server received them (target: never under the interval) and the time they took in all,
// beside the sum of the intervals. It only prints.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { tsImport } from 'tsx/esm/api';

const args = process.argv.slice(2);
const arg = (name, dflt) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
const ISSUES = arg('--issues', 1000);
const WRITES = arg('--writes', 30);
const INTERVAL = 20;

const { GitHubEmulator } = await tsImport('../test/support/githubEmulator.ts', import.meta.url);
// The client is bundled as the CLI bundles it (Octokit is ESM-only, loaded with import()).
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ralph-bench-ghclient-'));
const out = path.join(tmp, 'client.cjs');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await esbuild.build({ entryPoints: [path.join(root, 'src/node/github/client.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: out, logLevel: 'warning' });
const { GitHubClient } = createRequire(import.meta.url)(out);

const gh = await new GitHubEmulator({ maxRequests: 100_000, lifetimeMs: 600_000 }).start();
try {
  for (let n = 1; n <= ISSUES; n++) {
    gh.addIssue(n, `S-${n}: story ${n}`, ['ralph', n % 3 ? 'ralph:ready' : 'ralph:blocked'], { body: `<!-- ralph-workbench:story S-${n} -->\n${'- [ ] criterion\n'.repeat(5)}` });
  }
  const client = new GitHubClient({ apiUrl: gh.apiUrl, owner: 'acme', repo: 'taskflow', writeIntervalMs: INTERVAL });
  let mark = gh.requests.length;
  let t = performance.now();
  const fresh = await client.listIssuesWithLabel('ralph');
  const freshMs = performance.now() - t;
  const freshRequests = gh.since(mark);
  mark = gh.requests.length;
  t = performance.now();
  const again = await client.listIssuesWithLabel('ralph');
  const cachedMs = performance.now() - t;
  const cachedRequests = gh.since(mark);
  console.log(`GitHub client against the test server (node ${process.version})`);
  console.log(`list ${fresh.length} labelled issues, fresh:   ${freshRequests.length} requests (${freshRequests.filter((q) => q.status === 200).length} × 200)   ${freshMs.toFixed(0)} ms (baseline)`);
  console.log(`list ${again.length} labelled issues, again:   ${cachedRequests.length} requests (${cachedRequests.filter((q) => q.status === 304).length} × 304)   ${cachedMs.toFixed(0)} ms (${(cachedMs / freshMs).toFixed(2)}× the fresh listing)`);

  const before = gh.requests.length;
  const slow = { path: /\/issues$/, method: 'POST', fault: { kind: 'slow', delayMs: 5 } };
  gh.faults.push(slow);
  t = performance.now();
  await Promise.all(Array.from({ length: WRITES }, (_, k) => client.createIssue({ title: `new ${k}`, body: '' })));
  const writeMs = performance.now() - t;
  const at = gh.since(before).map((q) => q.at);
  const gaps = at.slice(1).map((x, k) => x - at[k]);
  const smallest = Math.min(...gaps);
  console.log(`${WRITES} writes started at once, writeIntervalMs ${INTERVAL}: smallest gap ${smallest} ms (target ≥ ${INTERVAL}: ${smallest >= INTERVAL ? 'met' : 'NOT met'}), ${writeMs.toFixed(0)} ms in all (baseline ${WRITES - 1} × ${INTERVAL} = ${(WRITES - 1) * INTERVAL} ms of intervals)`);
} finally {
  await gh.stop();
  rmSync(tmp, { recursive: true, force: true });
}
