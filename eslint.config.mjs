// Lint: typescript-eslint's recommended rules, plus the layer rules of ARCHITECTURE.md.
import tseslint from 'typescript-eslint';

/** One no-restricted-imports block per layer: the folders (under src/) a layer must not import. */
function layers(list) {
  return list.map(({ folder, why, vscode = true, nodeBuiltins = true, forbidden, allow = [] }) => ({
    files: [`${folder}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: vscode ? [] : [{ name: 'vscode', message: `${why} Put the VS Code API call in src/services, src/views or src/commands.` }],
          patterns: [
            {
              group: forbidden.map((f) => (f === 'extension' || f === 'api' || f === 'constants' ? `**/${f}` : `**/${f}/**`)).concat(forbidden.includes('node') ? ['**/node'] : []).concat(allow.map((a) => `!${a}`)),
              message: `${why} (${folder} must not import ${forbidden.map((f) => `src/${f}`).join(', ')}; see ARCHITECTURE.md)`,
            },
            ...(nodeBuiltins ? [] : [{ group: ['node:*', 'fs', 'path', 'child_process', 'os'], message: `${why} Node I/O belongs in src/node.` }]),
          ],
        },
      ],
    },
  }));
}

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'examples/**', 'test-results/**', '.vscode-test/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      curly: 'error',
    },
  },
  // The layers (ARCHITECTURE.md, "Layers"): what each folder may import, enforced here.
  ...layers([
    {
      folder: 'src/core',
      why: 'src/core is pure TypeScript (CLI, extension, tests, webviews): no VS Code API, no Node I/O, no extension-side modules.',
      vscode: false,
      nodeBuiltins: false,
      forbidden: ['node', 'cli', 'services', 'views', 'commands', 'util', 'extension', 'api', 'constants'],
    },
    { folder: 'src/node', why: 'src/node is shared by the CLI and the extension: no VS Code API.', vscode: false, forbidden: ['cli', 'services', 'views', 'commands', 'util', 'extension'] },
    { folder: 'src/cli', why: 'the CLI runs without VS Code.', vscode: false, forbidden: ['services', 'views', 'commands', 'util', 'extension'], allow: ['./commands/**', '../commands/**'] },
    { folder: 'src/util', why: 'src/util holds small VS Code helpers under every extension layer.', forbidden: ['node', 'cli', 'services', 'views', 'commands', 'extension'] },
    { folder: 'src/services', why: 'services hold state; views and commands sit on top of them.', forbidden: ['cli', 'views', 'commands', 'extension'] },
    { folder: 'src/views', why: 'views show services; they do not call commands modules or Node I/O directly.', forbidden: ['node', 'cli', 'commands', 'extension'] },
    { folder: 'src/commands', why: 'commands are thin handlers over services and views.', forbidden: ['cli', 'extension'] },
  ]),
  {
    // A webview page runs in the browser: it sees only its own folder and the shared protocols.
    files: ['webview-ui/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'A webview page has no VS Code API: talk to the host through the typed protocol (src/core/webview/<name>Protocol.ts).' }],
          patterns: [
            {
              regex: '(^|/)src/(?!core/webview/[A-Za-z]+Protocol(\\.js)?$)|^node:',
              message: 'webview-ui may import only webview-ui and the shared protocol modules src/core/webview/<name>Protocol.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
  },
);
