// Compiles the extension-host suites (test/host/*.ts) to out/test/host/*.js with esbuild: one
// CommonJS bundle per suite plus index.js, with `vscode` and `mocha` left external (mocha is
// resolved from this repo's node_modules when the extension host loads out/test/host/index.js).
//   node scripts/build-tests.mjs
import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const hostTestsOut = path.join(root, 'out', 'test', 'host');
/** extensionTestsPath: the compiled suite index, without .js. */
export const hostTestsIndex = path.join(hostTestsOut, 'index');

export async function buildHostTests() {
  const dir = path.join(root, 'test', 'host');
  const entries = readdirSync(dir)
    .filter((f) => f === 'index.ts' || f.endsWith('.test.ts'))
    .map((f) => path.join('test', 'host', f));
  rmSync(hostTestsOut, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: entries,
    outdir: hostTestsOut,
    outbase: path.join('test', 'host'),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    external: ['vscode', 'mocha'],
    // as in the test build of the extension (scripts/build.mjs): the suites may import src/ modules with test seams
    define: { __RALPH_TEST__: 'true' },
    // as in scripts/build.mjs: jsonc-parser's UMD "main" cannot be bundled, its ESM build can
    mainFields: ['module', 'main'],
    absWorkingDir: root,
    logLevel: 'warning',
  });
  return hostTestsIndex;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildHostTests();
  console.log(`[build-tests] ${path.relative(root, hostTestsOut)}`);
}
