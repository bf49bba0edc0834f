// Builds everything that runs: the extension host bundle, the CLI, the webview bundle, and the
// prd.json JSON schema generated from the zod schema (one source of truth).
//   node scripts/build.mjs [--production] [--watch]
// --production (npm run package, vscode:prepublish) builds without the test seams: the constant
// __RALPH_TEST__ is false there, so the test API and the test-only GitHub access are dead code
// that esbuild drops. Every other build (npm run build: the test tiers, npm start) has them.
// The configurations are exported for the tests that build a bundle of their own.
import * as esbuild from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync, copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

/** What every bundle shares; `production` drops source maps and minifies. */
function commonOptions(production) {
  return {
    bundle: true,
    sourcemap: production ? false : 'linked',
    minify: production,
    logLevel: 'warning',
    absWorkingDir: root,
    // jsonc-parser's "main" is a UMD build that esbuild cannot follow; its ESM build bundles cleanly.
    mainFields: ['module', 'main'],
  };
}

/**
 * The extension host bundle. `__RALPH_TEST__` (declared in src/buildFlags.d.ts) is true except in
 * production: the test API that `activate` returns and the test-only GitHub access exist only then.
 */
export function extensionConfig({ production = false, outfile = path.join(dist, 'extension.js') } = {}) {
  return {
    ...commonOptions(production),
    entryPoints: ['src/extension.ts'],
    outfile,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['vscode'],
    define: { __RALPH_TEST__: production ? 'false' : 'true' },
  };
}

/**
 * zod's `z.locales` re-exports the error messages of every language (about 260 KB minified, half
 * the page). The pages speak English only: their bundle keeps zod's English messages (the default)
 * and drops the other languages.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) => (/[\\/]zod[\\/]/.test(args.importer) ? { path: 'zod-locales-en', namespace: 'zod-locales' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, () => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(root, 'node_modules', 'zod', 'v4', 'locales', 'en.js'))};`,
      resolveDir: root,
    }));
  },
};

/**
 * The command line: dist/cli.js holds the command table of src/cli/main.ts and the argument
 * parser; each command module the table `require`s (`./commands/<module>`) is a bundle of its own,
 * dist/cli/<module>.js, loaded only when its command runs (issue 17 §8: `next` in a loop script
 * does not parse the GitHub client, git or the Pin scanner).
 */
export function cliConfigs({ production = false, outdir = dist } = {}) {
  const main = path.join(root, 'src', 'cli', 'main.ts');
  const modules = [...new Set([...readFileSync(main, 'utf8').matchAll(/require\('\.\/commands\/(\w+)'\)/g)].map((m) => m[1]))];
  const commandsApart = {
    name: 'cli-commands-apart',
    setup(build) {
      build.onResolve({ filter: /^\.\/commands\/\w+$/ }, (args) =>
        args.kind === 'require-call' && args.importer === main ? { path: `./cli/${path.basename(args.path)}.js`, external: true } : undefined,
      );
    },
  };
  const common = { ...commonOptions(production), format: 'cjs', platform: 'node', target: 'node20' };
  return [
    {
      ...common,
      entryPoints: ['src/cli/main.ts'],
      outfile: path.join(outdir, 'cli.js'),
      banner: { js: '#!/usr/bin/env node' },
      plugins: [commandsApart],
    },
    {
      ...common,
      entryPoints: Object.fromEntries(modules.map((m) => [`cli/${m}`, `src/cli/commands/${m}.ts`])),
      outdir,
    },
  ];
}

function configs(production) {
  const common = commonOptions(production);
  return [
    extensionConfig({ production }),
    {
      // Generate the Pin runs here, in a worker thread of the extension host (src/node/pinRepo.ts).
      ...common,
      entryPoints: ['src/node/pinWorker.ts'],
      outfile: 'dist/pinWorker.js',
      format: 'cjs',
      platform: 'node',
      target: 'node20',
    },
    ...cliConfigs({ production }),
    {
      ...common,
      entryPoints: ['webview-ui/src/main.ts'],
      outfile: 'dist/webview/main.js',
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      // Minified in every build (with a source map outside production): the page parses a third of
      // the bytes before it can draw, in the UI tests and benchmarks as for users.
      minify: true,
      plugins: [zodEnglishOnly],
    },
  ];
}

async function generateSchema() {
  const out = await esbuild.build({
    entryPoints: ['src/core/prd/jsonSchema.ts'],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    absWorkingDir: root,
    logLevel: 'warning',
  });
  const mod = { exports: {} };
  const require = createRequire(path.join(root, 'scripts', 'build.mjs'));
  new Function('module', 'exports', 'require', out.outputFiles[0].text)(mod, mod.exports, require);
  const schema = mod.exports.prdJsonSchema();
  writeFileSync(path.join(dist, 'prd.schema.json'), `${JSON.stringify(schema, null, 2)}\n`);
}

function copyAssets() {
  mkdirSync(path.join(dist, 'webview'), { recursive: true });
  copyFileSync(path.join(root, 'node_modules/@vscode/codicons/dist/codicon.css'), path.join(dist, 'webview/codicon.css'));
  copyFileSync(path.join(root, 'node_modules/@vscode/codicons/dist/codicon.ttf'), path.join(dist, 'webview/codicon.ttf'));
}

async function main() {
  const production = process.argv.includes('--production');
  const watch = process.argv.includes('--watch');
  if (!watch) {
    rmSync(dist, { recursive: true, force: true });
  }
  mkdirSync(dist, { recursive: true });
  copyAssets();
  await generateSchema();
  if (watch) {
    for (const c of configs(production)) {
      const ctx = await esbuild.context(c);
      await ctx.watch();
    }
    console.log('[build] watching for changes');
  } else {
    await Promise.all(configs(production).map((c) => esbuild.build(c)));
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
