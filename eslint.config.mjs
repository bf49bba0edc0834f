// Lint: typescript-eslint's recommended rules, plus the layer rules of ARCHITECTURE.md.
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import regexpPlugin from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

const root = path.dirname(fileURLToPath(import.meta.url));

/**
 * What each layer may import (ARCHITECTURE.md, "Layers"): the folders its relative imports may
 * land in (resolved against the importing file, so a sub-folder named like a layer is no
 * confusion), and whether it may import `vscode` and Node built-ins.
 */
const LAYERS = {
  'src/core': { why: 'src/core is pure TypeScript (CLI, extension, tests, webviews)', allow: ['src/core'], vscode: false, node: false },
  'src/node': { why: 'src/node is shared by the CLI and the extension', allow: ['src/core', 'src/node'], vscode: false, node: true },
  'src/cli': { why: 'the CLI runs without VS Code', allow: ['src/core', 'src/node', 'src/cli'], vscode: false, node: true },
  'src/util': { why: 'src/util holds small VS Code helpers under every extension layer', allow: ['src/core', 'src/util'], vscode: true, node: true },
  'src/services': { why: 'services hold state; views and commands sit on top of them', allow: ['src/core', 'src/node', 'src/services', 'src/util', 'src/constants'], vscode: true, node: true },
  'src/views': { why: 'views show what services hold', allow: ['src/services', 'src/core', 'src/util', 'src/views', 'src/constants', 'src/api'], vscode: true, node: true },
  'src/commands': { why: 'commands are thin handlers over services and views', allow: ['src/services', 'src/views', 'src/core', 'src/node', 'src/util', 'src/commands', 'src/constants'], vscode: true, node: true },
  'webview-ui': { why: 'a webview page runs in the browser and talks to the host only through its typed protocol (and names states with the one vocabulary)', allow: ['webview-ui', 'protocol', 'vocabulary'], vscode: false, node: false },
};

/**
 * Inside src/core (ARCHITECTURE.md, "Layers"): what is built on what. A module may import its own
 * tier and the tiers below it, never one above: the per-file models (one file format each) know
 * nothing of the features built on them, and the shared base knows nothing of either. The first
 * tier whose pattern matches a path relative to src/core decides (the loose files of src/core are
 * the base, but AGENTS.md's model is a per-file model).
 */
const CORE_TIERS = [
  { name: 'a per-file model', match: /^(agentsMd\.ts|(prd|progress|pin|agents|runs|artifacts)\/)/ },
  { name: 'built on the per-file models', match: /^(taskGraph|loop|context|parallel|github|insights)\// },
  { name: 'the shared base of src/core', match: /^([^/]+$|webview\/)/ },
];
/** Lowest first. */
const CORE_ORDER = ['the shared base of src/core', 'a per-file model', 'built on the per-file models'];

/** The layer a repository path (posix, relative to the root) belongs to: "src/core", "src/api", "webview-ui", … */
function layerOf(rel) {
  if (rel.startsWith('webview-ui/')) return 'webview-ui';
  if (/^src\/core\/webview\/[A-Za-z]+Protocol(\.ts|\.js)?$/.test(rel)) return 'protocol';
  if (/^src\/core\/vocabulary(\.ts|\.js)?$/.test(rel)) return 'vocabulary';
  const m = /^src\/([^/]+)(\/|$)/.exec(rel);
  if (!m) return undefined;
  return m[2] === '/' ? `src/${m[1]}` : `src/${m[1].replace(/\.(ts|js)$/, '')}`;
}

/**
 * The tier of a module of src/core (a repository path) and its folder (src/core/prd, src/core/graph),
 * or undefined outside src/core. scripts/module-graph.mjs marks an upward arrow with it.
 */
export function coreTierOf(rel) {
  if (!rel.startsWith('src/core/')) return undefined;
  const inCore = rel.slice('src/core/'.length);
  const tier = CORE_TIERS.find((t) => t.match.test(inCore) || t.match.test(`${inCore}.ts`));
  if (!tier) return undefined;
  const folder = inCore.includes('/') ? `src/core/${inCore.split('/')[0]}` : `src/core/${inCore.replace(/\.(ts|js)$/, '')}`;
  return { rank: CORE_ORDER.indexOf(tier.name), name: tier.name, folder };
}

/** Files whose regular expressions can still backtrack polynomially (see the rule below). */
const KNOWN_SUPER_LINEAR = [
  'src/core/pin/format.ts',
  'src/core/progress/lines.ts',
];

const nodeBuiltins = new Set([...builtinModules, ...builtinModules.map((b) => `node:${b}`)]);

/** A local rule: every import of a layer lands in a layer it may import. */
const layersRule = {
  meta: { type: 'problem', schema: [{ type: 'object' }], messages: { layer: '{{message}} (see ARCHITECTURE.md, "Layers")' } },
  create(context) {
    const layers = context.options[0];
    const file = path.relative(root, context.filename).split(path.sep).join('/');
    const own = layerOf(file);
    const coreLike = (layer) => layer === 'protocol' || layer === 'vocabulary';
    const rule = coreLike(own) ? layers['src/core'] : layers[own];
    if (!rule) return {};
    const check = (node, source) => {
      if (typeof source !== 'string') return;
      const report = (message) => context.report({ node, messageId: 'layer', data: { message } });
      if (source === 'vscode') {
        if (!rule.vscode) report(`${rule.why}: ${own} must not import vscode`);
        return;
      }
      if (nodeBuiltins.has(source) || nodeBuiltins.has(source.split('/')[0])) {
        if (!rule.node) report(`${rule.why}: ${own} must not import the Node built-in "${source}"`);
        return;
      }
      if (!source.startsWith('.')) return; // npm packages
      const target = path.relative(root, path.resolve(path.dirname(context.filename), source)).split(path.sep).join('/');
      const to = layerOf(target) ?? target;
      const allowed = rule.allow.includes(to) || (coreLike(to) && rule.allow.includes('src/core'));
      const named = (a) => (a === 'protocol' ? 'src/core/webview/<name>Protocol' : a === 'vocabulary' ? 'src/core/vocabulary' : a);
      if (!allowed) {
        report(`${rule.why}: ${own} may import ${rule.allow.map(named).join(', ')}, not ${named(to)}`);
        return;
      }
      const from = coreTierOf(file);
      const into = coreTierOf(target);
      if (from && into && into.rank > from.rank) {
        report(`inside src/core nothing imports upwards: ${from.folder} is ${from.name} and must not import ${into.folder} (${into.name})`);
      }
    };
    return {
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value),
    };
  },
};

/**
 * What one module only may name (issue 17, item 3): commands are registered through the registrar,
 * which checks trust from their declared needs and catches, logs and records their errors; workspace
 * trust is read in one module. `name` is an identifier (or a computed property's string) anywhere in
 * a file; `member` is `<object>.<property>`, the object named or reached as `x.<object>`.
 */
const ONE_PLACE = [
  { name: 'registerCommand', file: 'src/commands/registrar.ts', why: 'commands are registered only through commandRegistrar (src/commands/registrar.ts), which checks trust from their needs and catches and logs their errors' },
  { name: 'registerTextEditorCommand', file: 'src/commands/registrar.ts', why: 'commands are registered only through commandRegistrar (src/commands/registrar.ts)' },
  { member: ['workspace', 'isTrusted'], file: 'src/services/trust.ts', why: 'workspace trust is read only in src/services/trust.ts: call isTrusted(), or use the isWorkspaceTrusted context key' },
];

/** A local rule: the names of ONE_PLACE appear only in their module. */
const onePlaceRule = {
  meta: { type: 'problem', schema: [{ type: 'array' }], messages: { onePlace: '{{why}} (see ARCHITECTURE.md)' } },
  create(context) {
    const file = path.relative(root, context.filename).split(path.sep).join('/');
    const rules = context.options[0].filter((r) => r.file !== file);
    const names = new Map(rules.filter((r) => r.name).map((r) => [r.name, r.why]));
    const members = rules.filter((r) => r.member);
    const propertyName = (n) => (n.type === 'Identifier' ? n.name : n.type === 'Literal' && typeof n.value === 'string' ? n.value : undefined);
    const isObject = (n, name) => (n.type === 'Identifier' && n.name === name) || (n.type === 'MemberExpression' && propertyName(n.property) === name);
    const report = (node, why) => context.report({ node, messageId: 'onePlace', data: { why } });
    return {
      Identifier: (n) => names.has(n.name) && report(n, names.get(n.name)),
      Literal: (n) => n.parent?.type === 'MemberExpression' && n.parent.computed && names.has(n.value) && report(n, names.get(n.value)),
      MemberExpression: (n) => {
        const m = members.find((r) => propertyName(n.property) === r.member[1] && isObject(n.object, r.member[0]));
        if (m) report(n, m.why);
      },
      // const { isTrusted } = vscode.workspace
      VariableDeclarator: (n) => {
        if (n.id.type !== 'ObjectPattern' || !n.init) return;
        for (const m of members) {
          if (isObject(n.init, m.member[0]) && n.id.properties.some((p) => p.type === 'Property' && propertyName(p.key) === m.member[1])) report(n, m.why);
        }
      },
    };
  },
};

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
  {
    files: ['src/**/*.ts', 'webview-ui/**/*.ts'],
    plugins: { ralph: { rules: { layers: layersRule } } },
    rules: { 'ralph/layers': ['error', LAYERS] },
  },
  // One registrar, one trust module (issue 17, item 3): see ONE_PLACE.
  {
    files: ['src/**/*.ts'],
    plugins: { seams: { rules: { 'one-place': onePlaceRule } } },
    rules: { 'seams/one-place': ['error', ONE_PLACE] },
  },
  // No regular expression whose time can grow faster than its input (issue 16): text from GitHub
  // and workspace files reaches these, and a polynomial match blocks the extension host's thread.
  // KNOWN_SUPER_LINEAR lists the files whose expressions are still to be rewritten (each reads
  // one line of a workspace file at a time); a file leaves the list when it is fixed.
  {
    files: ['src/**/*.ts', 'webview-ui/**/*.ts'],
    ignores: KNOWN_SUPER_LINEAR,
    plugins: { regexp: regexpPlugin },
    rules: { 'regexp/no-super-linear-backtracking': ['error', { report: 'certain' }] },
  },
  // Comment text from GitHub is read by a linear scanner: not even a quadratic move (a pattern
  // tried from every position) is allowed there.
  {
    files: ['src/core/artifacts/**/*.ts', 'src/node/github/**/*.ts', 'src/cli/context.ts'],
    ignores: ['src/core/artifacts/url.ts', 'src/node/github/client.ts'],
    plugins: { regexp: regexpPlugin },
    rules: { 'regexp/no-super-linear-move': ['error', { report: 'certain', ignoreSticky: true, ignorePartial: false }] },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
  },
);
