// The module graph of src/ and webview-ui/src, read from the import statements with TypeScript's
// own pre-processor (ts.preProcessFile: every import, re-export and dynamic import, type-only ones
// included, without the regular expressions that miss a multi-line import).
//
//   node scripts/module-graph.mjs [root]
//
// prints the folder-level graph: one line per pair of folders (a core sub-folder such as
// src/core/prd, a layer such as src/views, a webview page such as webview-ui/src/graph) with the
// number of file-to-file imports between them, an arrow that goes up inside src/core marked (the
// tiers of the ralph/layers lint in eslint.config.mjs), then the import cycles between files, if any.
// test/unit/imports.test.ts uses the same functions to fail on a cycle.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { coreTierOf } from '../eslint.config.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The folders whose modules make up the graph, relative to the repository root. */
export const SOURCE_ROOTS = ['src', 'webview-ui/src'];

function tsFiles(dir) {
  if (!existsSync(dir)) {
    return [];
  }
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** The module a relative import names: `x.ts`, `x/index.ts`, or `x.ts` for an import written `x.js`. */
function resolveImport(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts'), base.replace(/\.js$/, '.ts')]) {
    if (candidate.endsWith('.ts') && existsSync(candidate) && statSync(candidate).isFile()) {
      return candidate;
    }
  }
  return undefined;
}

/** Posix path relative to the root. */
const rel = (root, file) => path.relative(root, file).split(path.sep).join('/');

/**
 * Every module under the source roots and the modules it imports (relative imports that resolve
 * to a .ts file; npm packages and `vscode` are not part of the graph). Keys and values are paths
 * relative to `root`, posix style.
 */
export function moduleGraph(root = path.resolve(here, '..')) {
  const graph = new Map();
  for (const sourceRoot of SOURCE_ROOTS) {
    for (const file of tsFiles(path.join(root, sourceRoot))) {
      const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = [];
      for (const ref of info.importedFiles) {
        if (!ref.fileName.startsWith('.')) {
          continue;
        }
        const target = resolveImport(file, ref.fileName);
        if (target && !targets.includes(rel(root, target))) {
          targets.push(rel(root, target));
        }
      }
      graph.set(rel(root, file), targets);
    }
  }
  return graph;
}

/**
 * The import cycles of a module graph, each as the modules on it with the first repeated last
 * (one cycle per back edge a depth-first walk meets: every strongly connected group of modules is
 * reported at least once). Empty when there are none.
 */
export function importCycles(graph) {
  const state = new Map();
  const cycles = [];
  for (const start of [...graph.keys()].sort()) {
    if (state.has(start)) {
      continue;
    }
    // Iterative depth-first walk: the stack holds [module, index of its next import].
    const stack = [[start, 0]];
    const onPath = [start];
    state.set(start, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const imports = graph.get(top[0]) ?? [];
      if (top[1] >= imports.length) {
        stack.pop();
        onPath.pop();
        state.set(top[0], 2);
        continue;
      }
      const next = imports[top[1]++];
      if (state.get(next) === 1) {
        cycles.push([...onPath.slice(onPath.indexOf(next)), next]);
      } else if (!state.has(next)) {
        state.set(next, 1);
        stack.push([next, 0]);
        onPath.push(next);
      }
    }
  }
  return cycles;
}

/**
 * The folder a module belongs to in the folder-level picture: a sub-folder of src/core
 * (src/core/prd), the loose files of src/core ("src/core/*"), a layer (src/views, its sub-folders
 * included), a top-level file of src (src/extension), a webview page (webview-ui/src/graph).
 */
export function folderOf(file) {
  const core = /^src\/core\/([^/]+)\//.exec(file);
  if (core) {
    return `src/core/${core[1]}`;
  }
  if (/^src\/core\/[^/]+$/.test(file)) {
    // AGENTS.md's model is a per-file model among the shared base's loose files (the lint's tiers).
    return file === 'src/core/agentsMd.ts' ? 'src/core/agentsMd.ts' : 'src/core/*';
  }
  const layer = /^src\/([^/]+)\//.exec(file);
  if (layer) {
    return `src/${layer[1]}`;
  }
  const top = /^src\/([^/]+)\.ts$/.exec(file);
  if (top) {
    return `src/${top[1]}`;
  }
  const page = /^webview-ui\/src\/([^/]+)\//.exec(file);
  return page ? `webview-ui/src/${page[1]}` : path.posix.dirname(file);
}

/**
 * Edges between folders with the number of module imports behind each, sorted by folder names;
 * `upward` when a module of src/core imports a tier above its own (the `ralph/layers` lint's tiers).
 */
export function folderEdges(graph) {
  const counts = new Map();
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = folderOf(from);
      const b = folderOf(to);
      if (a !== b) {
        const key = `${a}\u0000${b}`;
        const upward = (coreTierOf(to)?.rank ?? -1) > (coreTierOf(from)?.rank ?? Infinity);
        const edge = counts.get(key) ?? { count: 0, upward: false };
        counts.set(key, { count: edge.count + 1, upward: edge.upward || upward });
      }
    }
  }
  return [...counts]
    .map(([key, { count, upward }]) => {
      const [from, to] = key.split('\u0000');
      return upward ? { from, to, count, upward } : { from, to, count };
    })
    .sort((x, y) => (x.from === y.from ? (x.to < y.to ? -1 : 1) : x.from < y.from ? -1 : 1));
}

function main() {
  const root = path.resolve(process.argv[2] ?? path.resolve(here, '..'));
  const graph = moduleGraph(root);
  const edges = folderEdges(graph);
  const width = Math.max(...edges.map((e) => e.from.length));
  console.log(`Module graph of ${SOURCE_ROOTS.join(' and ')} (${graph.size} modules): folder → folder, module imports`);
  for (const e of edges) {
    console.log(`  ${e.from.padEnd(width)} → ${e.to} (${e.count})${e.upward ? '  ↑ UPWARD inside src/core' : ''}`);
  }
  const upward = edges.filter((e) => e.upward).length;
  console.log(upward === 0 ? 'No upward arrow inside src/core.' : `${upward} upward arrow(s) inside src/core.`);
  const cycles = importCycles(graph);
  console.log(cycles.length === 0 ? 'No import cycles.' : `${cycles.length} import cycle(s):`);
  for (const c of cycles) {
    console.log(`  ${c.join(' → ')}`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main();
}
