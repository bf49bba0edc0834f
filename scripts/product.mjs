// The extension as a user's VS Code loads it: the production build (no test seams), installed in
// the server's extensions folder — not loaded as an "extension under development", which needs
// the smoke-test driver, and that driver hides every notification. Used by `npm start` and by the
// UI test that checks what `npm start` shows.
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { extensionConfig } from './build.mjs';
import { repoRoot } from './vscode-host.mjs';

/** What the .vsix holds (.vscodeignore), apart from dist/extension.js, which is built for production here. */
const SHIPPED = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'media', 'snippets', 'dist'];

/**
 * Stages the extension as installed (`<publisher>.<name>-<version>/`) under `dir`, from the built
 * `dist/` (run `npm run build` first) with a production `dist/extension.js`. Returns the folder.
 * @param {{ dir?: string }} [options]
 */
export async function stageProductExtension({ dir = path.join(os.homedir(), '.cache', 'ralph-workbench', 'product') } = {}) {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
  const target = path.join(dir, `${pkg.publisher}.${pkg.name}-${pkg.version}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  for (const entry of SHIPPED) {
    try {
      cpSync(path.join(repoRoot, entry), path.join(target, entry), {
        recursive: true,
        // source maps and the test build's bundle stay behind
        filter: (src) => !src.endsWith('.map') && path.relative(repoRoot, src) !== path.join('dist', 'extension.js'),
      });
    } catch (err) {
      if (err?.code !== 'ENOENT' || entry === 'package.json' || entry === 'dist') throw err;
    }
  }
  await esbuild.build({ ...extensionConfig({ production: true, outfile: path.join(target, 'dist', 'extension.js') }), logLevel: 'warning' });
  return target;
}
