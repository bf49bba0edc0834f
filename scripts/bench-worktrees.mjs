// Benchmark of the parallel engine's git side (issue 19): the overhead one story adds when it runs
// in its own worktree, on a repository of 5,000 tracked files: worktree add + its prompt file +
// the merge (prd.json and progress.txt from the rules) + the worktree's removal (target < 0.5 s).
// The agent's own work (a file, passes, a progress entry, its feat: commit) is not counted.
//   node scripts/bench-worktrees.mjs [--stories N] [--files N]
// As the runner does it: the first story adds its worktree, each next story reuses the worktree of
// the one merged before it (reuseWorktree), the last is removed: timed per story, that removal shared.
// Baseline, measured in the same run on the same repository: the bare git commands of the same
// steps (`git worktree add -b`, `git merge --no-ff --no-edit`, `git worktree remove`,
// `git branch -d`), with no checks and no prd.json / progress.txt rules. It only prints.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { bundleSources } from './bench-cli.mjs';

const args = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? Math.max(1, Number(args[i + 1]) || dflt) : dflt;
};
const STORIES = arg('--stories', 4);
const FILES = arg('--files', 5000);
const FEATURE = 'ralph/bench';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ralph-bench-worktrees-'));
const git = (cwd, ...a) => execFileSync('git', a, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

try {
  const bundle = await bundleSources(
    tmp,
    [
      "export { preflight, addWorktree, removeWorktree, reuseWorktree } from './src/node/parallel/worktrees';",
      "export { mergeStory } from './src/node/parallel/mergeStory';",
      "export { setPassesByIdEdits } from './src/core/prd/graphEdits';",
      "export { applyEdits } from './src/core/textEdit';",
    ].join('\n'),
    'parallel.cjs',
  );
  const { preflight, addWorktree, removeWorktree, reuseWorktree, mergeStory, setPassesByIdEdits, applyEdits } = createRequire(import.meta.url)(bundle);

  // The repository: FILES tracked files in 50 folders, prd.json with one story per timed run.
  const repoDir = path.join(tmp, 'repo');
  mkdirSync(repoDir);
  git(repoDir, 'init', '-q', '-b', 'main');
  git(repoDir, 'config', 'user.name', 'Bench');
  git(repoDir, 'config', 'user.email', 'bench@example.invalid');
  git(repoDir, 'config', 'commit.gpgsign', 'false');
  writeFileSync(path.join(repoDir, '.git', 'info', 'exclude'), '.ralph/\n');
  for (let i = 0; i < FILES - 3; i++) {
    const dir = path.join(repoDir, 'src', `m${i % 50}`);
    if (i < 50) {
      mkdirSync(dir, { recursive: true });
    }
    writeFileSync(path.join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
  const ids = Array.from({ length: 2 * STORIES + 1 }, (_, i) => `US-${String(i + 1).padStart(3, '0')}`);
  const prd = { projectName: 'Bench', branchName: FEATURE, description: 'bench', userStories: ids.map((id, i) => ({ id, title: `Story ${id}`, priority: i + 1, passes: false, description: 'x', acceptanceCriteria: ['ok'] })) };
  writeFileSync(path.join(repoDir, 'prd.json'), `${JSON.stringify(prd, null, 2)}\n`);
  writeFileSync(path.join(repoDir, 'progress.txt'), '# Ralph Progress Log\n---\n\n## Codebase Patterns\n- one\n\n---\n\n');
  writeFileSync(path.join(repoDir, 'AGENTS.md'), '# Agents\n');
  git(repoDir, 'add', '-A');
  git(repoDir, 'commit', '-q', '-m', 'initial');
  git(repoDir, 'checkout', '-q', '-b', FEATURE);
  const tracked = Number(execFileSync('sh', ['-c', 'git ls-files | wc -l'], { cwd: repoDir, encoding: 'utf8' }).trim());
  const gitVersion = git(repoDir, '--version');

  /** The agent's part (not timed): a file, passes in prd.json, a progress entry, the feat: commit. */
  const agent = (folder, id) => {
    writeFileSync(path.join(folder, 'src', `${id}.ts`), `export const story = '${id}';\n`);
    const prdFile = path.join(folder, 'prd.json');
    const text = readFileSync(prdFile, 'utf8');
    writeFileSync(prdFile, applyEdits(text, setPassesByIdEdits(text, id, true).edits));
    appendFileSync(path.join(folder, 'progress.txt'), `## 2026-01-02 10:00 - ${id}\n- done\n- **Learnings for future iterations:**\n  - learned ${id}\n---\n\n`);
    git(folder, 'add', '-A');
    git(folder, 'commit', '-q', '-m', `feat: ${id} - Story ${id}`);
  };

  const engine = [];
  const baseline = [];
  const parts = { preflight: [], add: [], prompt: [], merge: [], remove: [], reuse: [] };
  /** The worktree of the story merged last, for the next one (the runner's way). */
  let spare;
  let lastRemove = 0;
  const wtRoot = path.join(tmp, 'worktrees');
  let k = 0;
  for (let run = 0; run < STORIES; run++) {
    // The engine: every check, the rules for prd.json and progress.txt.
    {
      const id = ids[k++];
      // The checks of the repository run once per parallel run, not per story: timed apart.
      const p0 = performance.now();
      const repo = await preflight(repoDir, FEATURE);
      parts.preflight.push(performance.now() - p0);
      const t0 = performance.now();
      const reused = spare ? await reuseWorktree(repo, spare, id, { worktreeRoot: wtRoot }) : undefined;
      if (spare && !reused) {
        throw new Error(`the worktree of ${spare.storyId} could not be reused for ${id}`);
      }
      const wt = reused ?? (await addWorktree(repo, id, { worktreeRoot: wtRoot }));
      const t1 = performance.now();
      // The prompt goes under the worktree's .ralph/, which addWorktree makes (git-ignored).
      writeFileSync(path.join(wt.folder, '.ralph', `prompt-${id}.md`), `# ${id}\n${'Context line.\n'.repeat(400)}`);
      const t2 = performance.now();
      agent(wt.folder, id);
      const t3 = performance.now();
      const outcome = await mergeStory(repo, wt);
      if (outcome.kind !== 'merged') {
        throw new Error(`${id} was not merged: ${JSON.stringify(outcome)}`);
      }
      const t4 = performance.now();
      (reused ? parts.reuse : parts.add).push(t1 - t0);
      parts.prompt.push(t2 - t1);
      parts.merge.push(t4 - t3);
      engine.push(t1 - t0 + (t2 - t1) + (t4 - t3));
      spare = wt;
      if (run === STORIES - 1) {
        // The last worktree goes when the run ends: its removal is shared by the stories.
        await removeWorktree(repo, wt);
        lastRemove = performance.now() - t4;
        parts.remove.push(lastRemove);
      }
    }
    // The baseline: the bare git commands.
    {
      const id = ids[k++];
      const folder = path.join(wtRoot, id);
      const branch = `${FEATURE}-${id}`;
      const t0 = performance.now();
      git(repoDir, 'worktree', 'add', '-q', '-b', branch, folder, 'HEAD');
      const t1 = performance.now();
      agent(folder, id);
      const t2 = performance.now();
      // prd.json / progress.txt: the bare merge would conflict there; take the branch's side, as a script might.
      try {
        git(repoDir, 'merge', '-q', '--no-ff', '--no-edit', branch);
      } catch {
        git(repoDir, 'checkout', '--theirs', '--', 'prd.json', 'progress.txt');
        git(repoDir, 'add', 'prd.json', 'progress.txt');
        git(repoDir, 'commit', '-q', '--no-edit');
      }
      git(repoDir, 'worktree', 'remove', folder);
      git(repoDir, 'branch', '-q', '-d', branch);
      const t3 = performance.now();
      baseline.push(t1 - t0 + (t3 - t2));
    }
  }
  const ms = (x) => `${Math.round(x)} ms`;
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  const load = os.loadavg()[0];
  console.log(`parallel engine, ${gitVersion}, ${tracked} tracked files, ${STORIES} stories (median); ${cores} cores, load ${load.toFixed(1)}`);
  const m = median(engine);
  const b = median(baseline);
  const amortized = (engine.reduce((x, y) => x + y, 0) + lastRemove) / STORIES;
  console.log(
    `per-story overhead (worktree add or reuse + prompt file + merge + remove): ${ms(m).padStart(7)} a story (${ms(amortized)} with the first add and the last removal shared by the ${STORIES})   baseline (bare git commands, add and remove each story) ${ms(b)} (${(m / b).toFixed(2)}×)   target < 500 ms: ${m < 500 ? 'met' : 'NOT met'}`,
  );
  console.log(
    `  of which: reuse ${ms(median(parts.reuse))}, prompt ${ms(median(parts.prompt))}, merge ${ms(median(parts.merge))}; once a slot: add ${ms(median(parts.add))}, remove ${ms(median(parts.remove))}; once per run: the repository checks (preflight) ${ms(median(parts.preflight))}`,
  );
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
