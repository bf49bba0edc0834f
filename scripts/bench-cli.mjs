// The CLI the benchmarks time: dist/cli.js and its command bundles dist/cli/*.js, rebuilt with
// `npm run build` when missing or older than the sources they are made of (the CLI alone is
// bundled when that build fails: the rest of the extension may be mid-edit), then copied to a
// private folder, because a concurrent `npm run build` empties dist/ while it works.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** A fresh copy of the CLI (with its source maps) in `tmp`; returns the path of its cli.js. */
export async function benchCli(tmp) {
  const distCli = path.join(root, 'dist/cli.js');
  const sourcesMtime = Math.max(...['src/core', 'src/cli', 'src/node'].map((d) => newestMtime(path.join(root, d))), statSync(path.join(root, 'scripts/build.mjs')).mtimeMs);
  const copy = path.join(tmp, 'cli.js');
  if (!existsSync(distCli) || statSync(distCli).mtimeMs < sourcesMtime) {
    console.log(`dist/cli.js is ${existsSync(distCli) ? 'older than its sources' : 'missing'}: running npm run build…`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const build = spawnSync(npm, ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', shell: process.platform === 'win32' });
    if (build.status !== 0 || !existsSync(distCli)) {
      console.log(`npm run build failed (${(build.stderr || '').trim().split('\n')[0] || `exit ${build.status}`}); bundling the CLI alone.`);
      const esbuild = await import('esbuild');
      const { cliConfigs } = await import('./build.mjs');
      await Promise.all(cliConfigs({ outdir: tmp }).map((c) => esbuild.build(c)));
      return copy;
    }
  }
  // cli.js, its command bundles (cli/) and the source maps of both.
  cpSync(distCli, copy);
  for (const extra of [`${distCli}.map`, path.join(root, 'dist/cli')]) {
    if (existsSync(extra)) {
      cpSync(extra, path.join(tmp, path.basename(extra)), { recursive: true });
    }
  }
  const kb = (f) => `${(statSync(f).size / 1024).toFixed(0)} KB`;
  const next = path.join(root, 'dist/cli/next.js');
  console.log(`CLI: dist/cli.js (${kb(distCli)}${existsSync(next) ? `; the next command's bundle dist/cli/next.js ${kb(next)}` : ''}, built ${new Date(statSync(distCli).mtimeMs).toISOString()}), timed from a private copy`);
  return copy;
}

/** A seeded random generator (mulberry32): the benchmarks' fixtures are the same on every run. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Bundles modules of src/ for a benchmark to require: `contents` is the entry's source (export
 * lines with paths from the repository root); returns the path of the CommonJS bundle in `tmp`.
 */
export async function bundleSources(tmp, contents, name = 'core.cjs') {
  const esbuild = await import('esbuild');
  const out = path.join(tmp, name);
  await esbuild.build({
    stdin: { contents, resolveDir: root, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: out,
    mainFields: ['module', 'main'], // jsonc-parser's UMD build requires files esbuild cannot follow
    logLevel: 'warning',
  });
  return out;
}
