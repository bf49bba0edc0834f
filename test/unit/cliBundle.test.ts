/**
 * Issue 17 §8: the CLI loads what its command needs. The CLI is built here (the configuration
 * scripts/build.mjs uses, without minifying, so esbuild's `// path` comments name what each file
 * holds) into a temporary folder and run as a whole process; the files that process loads must not
 * hold Octokit, simple-git, the Pin scanner or the layout unless the command uses them. The time a
 * process takes is measured by `npm run bench` (scripts/bench.mjs), never here.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';

interface BuildScript {
  cliConfigs(options: { production: boolean; outdir: string }): esbuild.BuildOptions[];
}

const demo = path.resolve(__dirname, '../../examples/demo/prd.json');

/** What each command must not load: the heavy parts of the other commands. */
const HEAVY = {
  Octokit: /node_modules\/@octokit\//,
  'simple-git': /node_modules\/simple-git\//,
  'the Pin scanner': /src\/node\/pinRepo\.ts/,
  'the layout': /src\/core\/taskGraph\/layout\.ts/,
  'the compaction': /src\/node\/compaction\.ts/,
} as const;

describe('the CLI loads what its command needs (issue 17 §8)', function () {
  this.timeout(60_000);
  let dir = '';
  let cli = '';
  let hook = '';

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ralph-cli-bundle-'));
    const { cliConfigs } = (await import('../../scripts/build.mjs')) as BuildScript;
    await Promise.all(cliConfigs({ production: false, outdir: path.join(dir, 'dist') }).map((c) => esbuild.build({ ...c, sourcemap: false, logLevel: 'silent' })));
    cli = path.join(dir, 'dist', 'cli.js');
    // Preloaded into the CLI process: prints, at exit, every file the process required.
    hook = path.join(dir, 'loaded.cjs');
    writeFileSync(hook, `process.on('exit', () => process.stderr.write('\\n@@loaded ' + JSON.stringify(Object.keys(require.cache).filter((f) => f !== __filename)) + '\\n'));\n`);
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  /** Runs the built CLI; returns its output and the text of every file it loaded. */
  function run(args: string[]): { status: number | null; stdout: string; stderr: string; loaded: Map<string, string> } {
    const r = spawnSync(process.execPath, ['--require', hook, cli, ...args], { encoding: 'utf8', timeout: 15_000 });
    const m = /\n@@loaded (.*)\n/.exec(r.stderr);
    assert.ok(m, `the CLI process did not report what it loaded: ${r.stderr}`);
    const loaded = new Map((JSON.parse(m[1]) as string[]).map((f) => [path.relative(dir, f), readFileSync(f, 'utf8')]));
    return { status: r.status, stdout: r.stdout, stderr: r.stderr.slice(0, m.index), loaded };
  }

  /** The heavy parts found in the files a run loaded, but those the command itself uses. */
  function heavyIn(loaded: Map<string, string>, uses: readonly (keyof typeof HEAVY)[] = []): string[] {
    const found: string[] = [];
    for (const [name, re] of Object.entries(HEAVY)) {
      if ((uses as readonly string[]).includes(name)) {
        continue;
      }
      for (const [file, text] of loaded) {
        if (re.test(text)) {
          found.push(`${name} (in ${file})`);
        }
      }
    }
    return found;
  }

  it('next, validate and ready load no GitHub client, git, Pin scanner, layout or compaction, and still answer', () => {
    const next = run(['next', '--prd', demo, '--json']);
    assert.equal(next.status, 0, next.stderr);
    assert.equal((JSON.parse(next.stdout) as { state: string }).state, 'ready');
    assert.deepEqual(heavyIn(next.loaded), []);
    for (const command of ['validate', 'ready']) {
      const r = run([command, '--prd', demo]);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(heavyIn(r.loaded), [], command);
    }
  });

  it('graph loads neither the GitHub client, git, the Pin scanner nor the compaction', () => {
    const r = run(['graph', '--prd', demo]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^12 stories: .* waves/);
    assert.deepEqual(heavyIn(r.loaded), []);
  });

  it('compact loads neither the Pin scanner, the GitHub client, git nor the layout; pin loads no compaction', () => {
    const work = mkdtempSync(path.join(tmpdir(), 'ralph-cli-memory-'));
    try {
      const progress = path.join(work, 'progress.txt');
      writeFileSync(progress, '# Ralph Progress Log\n\n## Codebase Patterns\n- one\n\n---\n');
      const compact = run(['compact', '--file', progress, '--dry-run']);
      assert.equal(compact.status, 0, compact.stderr);
      assert.match(compact.stdout, /progress\.txt: /);
      assert.deepEqual(heavyIn(compact.loaded, ['the compaction']), []);
      const pin = run(['pin', '--root', work]);
      assert.equal(pin.status, 0, pin.stderr);
      assert.match(pin.stdout, /^# /m);
      assert.deepEqual(heavyIn(pin.loaded, ['the Pin scanner', 'simple-git']), []);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('the overall usage still lists every command, and an unknown command still gets it', () => {
    const help = run(['--help']);
    assert.equal(help.status, 0);
    for (const name of ['validate', 'next', 'ready', 'context', 'compact', 'pin', 'graph', 'artifacts']) {
      assert.match(help.stdout, new RegExp(`^  ${name} `, 'm'));
    }
    const unknown = run(['bogus']);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /^ralph-workbench: unknown command "bogus"\n\nUsage: ralph-workbench <command>/);
  });
});
