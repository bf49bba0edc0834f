// Benchmarks of GitHub as the engine (issue 20), against the project's GitHub test server
// (test/support/githubEmulator.ts on 127.0.0.1, never github.com). Counts, not times:
//   node scripts/bench-github-engine.mjs [--publish] [--kills N] [--dispatch]   (default: all, 20 kills)
// --publish: 200 stories with 300 dependencies published: requests per story (reads and writes),
//   then a second publish with nothing changed (0 writes) and a third (every read a 304).
// --kills N: a publish of 40 stories by the CLI (node dist/cli.js github publish: needs
//   `npm run build`) killed with SIGKILL at a random moment, N times, each followed by a publish to
//   the end: duplicate issues and duplicate dependencies counted (target 0 and 0).
// --dispatch: 50 ready stories dispatched with max-parallel 5 while the test server finishes runs
//   and merges their pull requests: the most runs in flight the server saw (target ≤ 5).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const all = !args.includes('--publish') && !args.includes('--kills') && !args.includes('--dispatch');
const killsAt = args.indexOf('--kills');
const KILLS = killsAt >= 0 ? Number(args[killsAt + 1]) : 20;
const TOKEN = 'bench-token';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ralph-bench-engine-'));
try {
  const out = path.join(tmp, 'engine.cjs');
  await esbuild.build({
    stdin: {
      contents: `
        export { GitHubEmulator } from './test/support/githubEmulator';
        export { GitHubClient } from './src/node/github/client';
        export { publishStories } from './src/node/github/publish';
        export { dispatchReady } from './src/node/github/dispatch';
        export { analyzePrd } from './src/core/prd/index';
        export { storyIdOfBody } from './src/core/github/storyIssue';
      `,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: out,
    logLevel: 'warning',
    define: { __RALPH_TEST__: 'false' },
    mainFields: ['module', 'main'], // jsonc-parser's UMD build requires files esbuild cannot follow
  });
  const m = createRequire(import.meta.url)(out);

  /** `n` stories in waves of `width`, each after the first wave waiting on up to two of the wave before: `deps` dependencies in all. */
  const backlog = (n, width, deps) => {
    const stories = Array.from({ length: n }, (_, i) => ({ id: `S-${String(i + 1).padStart(3, '0')}`, title: `Story ${i + 1}`, description: `Does thing ${i + 1}.`, acceptanceCriteria: ['It works', 'Typecheck passes'], priority: i + 1, passes: false, blockedBy: [] }));
    let left = deps;
    for (let round = 0; left > 0 && round < 2; round++) {
      for (let i = width; i < n && left > 0; i++) {
        const wave = Math.floor(i / width);
        const blocker = stories[(wave - 1) * width + ((i + round) % width)].id;
        if (!stories[i].blockedBy.includes(blocker)) {
          stories[i].blockedBy.push(blocker);
          left--;
        }
      }
    }
    return { projectName: 'Bench', branchName: 'ralph/bench', description: 'bench', userStories: stories };
  };
  const countDeps = (prd) => prd.userStories.reduce((k, s) => k + s.blockedBy.length, 0);
  const serve = () => new m.GitHubEmulator({ token: TOKEN, owner: 'acme', repo: 'bench', maxRequests: 200_000, lifetimeMs: 30 * 60_000 }).start();
  const clientFor = (gh) => new m.GitHubClient({ token: TOKEN, apiUrl: gh.apiUrl, owner: 'acme', repo: 'bench', writeIntervalMs: 0, retryAfterBaseMs: 10 });
  const duplicates = (gh) => {
    const seen = new Map();
    let issues = 0;
    let deps = 0;
    for (const i of gh.issues.values()) {
      const id = i.body ? m.storyIdOfBody(i.body) : undefined;
      if (id !== undefined) {
        seen.set(id, (seen.get(id) ?? 0) + 1);
      }
      deps += i.blockedBy.length - new Set(i.blockedBy).size;
    }
    for (const k of seen.values()) {
      issues += k - 1;
    }
    return { issues, deps, stories: seen.size };
  };

  if (all || args.includes('--publish')) {
    const prd = backlog(200, 8, 300);
    const analysis = m.analyzePrd(JSON.stringify(prd, null, 2));
    const gh = await serve();
    const client = clientFor(gh);
    const first = await m.publishStories(client, analysis, { repository: 'acme/bench' });
    const r1 = gh.requests.length;
    const w1 = gh.writes().length;
    const second = await m.publishStories(client, analysis, { repository: 'acme/bench' });
    const r2 = gh.requests.length - r1;
    const w2 = gh.writes(r1).length;
    const from3 = gh.requests.length;
    await m.publishStories(client, analysis, { repository: 'acme/bench' });
    const third = gh.since(from3);
    const not304s = third.filter((r) => r.method === "GET" && r.status !== 304);
    const not304 = not304s.length;
    const d = duplicates(gh);
    console.log(`publish 200 stories with ${countDeps(prd)} dependencies (test server, write interval 0):`);
    console.log(`  first publish:  ${r1} requests = ${(r1 / 200).toFixed(2)} a story (${w1} writes: ${first.created.length} issues, the rest labels, parents, sub-issues, dependencies, closes)`);
    console.log(`  second publish: ${r2} requests, ${w2} writes (target 0); ${second.writes.length} planned`);
    console.log(`  third publish:  ${third.length} requests, ${third.length - not304} answered 304, ${not304} not (target 0)${not304 ? `: ${not304s.map((r) => `${r.status} ${r.url}`).join(", ")}` : ""}`);
    console.log(`  issues per story ${d.stories}/200, duplicate issues ${d.issues}, duplicate dependencies ${d.deps}`);
    await gh.stop();
  }

  if (all || killsAt >= 0) {
    const cli = path.join(root, 'dist', 'cli.js');
    if (!existsSync(cli)) {
      throw new Error('dist/cli.js is missing: npm run build first');
    }
    const prd = backlog(40, 5, 60);
    const runCli = (dir, gh, killAfterMs) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [cli, 'github', 'publish', '--repo', 'acme/bench', '--api-url', gh.apiUrl, '--write-interval', '0'], { cwd: dir, env: { ...process.env, GH_TOKEN: TOKEN }, stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (c) => (err += c));
        const timer = killAfterMs !== undefined ? setTimeout(() => child.kill('SIGKILL'), killAfterMs) : undefined;
        child.on('exit', (code, signal) => {
          clearTimeout(timer);
          resolve({ code, signal, err });
        });
      });
    let dupIssues = 0;
    let dupDeps = 0;
    let missing = 0;
    let killedMidway = 0;
    const moments = [];
    for (let k = 0; k < KILLS; k++) {
      const gh = await serve();
      const dir = mkdtempSync(path.join(tmp, 'kill-'));
      writeFileSync(path.join(dir, 'prd.json'), `${JSON.stringify(prd, null, 2)}\n`);
      const at = 150 + Math.floor(Math.random() * 2500);
      moments.push(at);
      const killed = await runCli(dir, gh, at);
      if (killed.signal === 'SIGKILL') {
        killedMidway++;
      }
      const again = await runCli(dir, gh);
      if (again.code !== 0) {
        console.log(`  run ${k + 1}: the publish after the kill exited ${again.code}: ${again.err.slice(-500)}`);
      }
      const d = duplicates(gh);
      dupIssues += d.issues;
      dupDeps += d.deps;
      missing += 40 - d.stories;
      await gh.stop();
    }
    console.log(`publish of 40 stories (60 dependencies) by the CLI killed (SIGKILL) ${KILLS} times at random moments (${Math.min(...moments)}–${Math.max(...moments)} ms in; ${killedMidway} killed before the end), each followed by a publish to the end:`);
    console.log(`  duplicate issues: ${dupIssues} (target 0), duplicate dependencies: ${dupDeps} (target 0), stories without an issue after the second publish: ${missing}`);
  }

  if (all || args.includes('--dispatch')) {
    const prd = backlog(50, 50, 0); // 50 stories, none waiting on another: all ready
    prd.userStories.forEach((s, i) => (s.issue = 1000 + i));
    const analysis = m.analyzePrd(JSON.stringify(prd, null, 2));
    const gh = await serve();
    gh.addWorkflow('ralph.yml');
    const client = clientFor(gh);
    const dir = mkdtempSync(path.join(tmp, 'dispatch-'));
    let rounds = 0;
    let dispatched = 0;
    while (dispatched < 50 && rounds < 100) {
      rounds++;
      const r = await m.dispatchReady({ root: dir, analysis, port: client, maxParallel: 5, dryRun: false, files: { prd: 'prd.json', progress: 'progress.txt', pin: 'specs/INDEX.md' }, allowOverlap: true });
      dispatched += r.done.filter((d) => d.action === 'dispatched').length;
      // GitHub finishes some runs between two dispatches (one to three of those in flight).
      const open = [...gh.runs.values()].filter((x) => x.status !== 'completed');
      // Each finished run opened its story's pull request (open: the story is not dispatched again).
      for (const run of open.slice(0, 1 + (rounds % 3))) {
        gh.setRunStatus(run.id, 'completed', 'success');
        gh.openPullRequest({ head: `ralph/bench-${run.inputs.story}`, base: 'ralph/bench', title: `feat: ${run.inputs.story}` });
      }
    }
    console.log(`dispatch of 50 ready stories with max-parallel 5 (${rounds} rounds, runs finishing between them):`);
    const stories = new Set(gh.dispatches.map((x) => x.inputs.story));
    console.log(`  dispatched ${dispatched}/50 (${stories.size} different stories, none twice: ${stories.size === gh.dispatches.length ? 'yes' : 'no'}); most runs in flight the test server saw: ${gh.maxRunsInFlight} (target ≤ 5)`);
    await gh.stop();
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
