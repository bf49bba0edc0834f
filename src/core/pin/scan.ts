/**
 * Scanning a repository's files for the Pin: which files count (skipped folders, languages,
 * manifests), path helpers, and the regex scan of one source file (exports, imported packages).
 */
import { splitWords } from './format';

/** Folders never indexed: vendored, generated, version control, Ralph's own state. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set([
  'node_modules',
  'dist',
  'build',
  'out',
  '.git',
  'archive',
  '.ralph',
  'vendor',
  'coverage',
  '__pycache__',
  '.venv',
  'venv',
  '.next',
  '.nuxt',
  '.turbo',
  '.cache',
  'target',
  'bower_components',
  '.vscode-test',
]);

export const MANIFESTS = new Set(['package.json', 'Cargo.toml', 'go.mod', 'pyproject.toml', 'setup.py', 'composer.json', 'Gemfile', 'pom.xml', 'build.gradle', 'build.gradle.kts', 'deno.json']);

export const LANG: Record<string, string> = {
  ts: 'TypeScript',
  tsx: 'TypeScript',
  mts: 'TypeScript',
  cts: 'TypeScript',
  js: 'JavaScript',
  jsx: 'JavaScript',
  mjs: 'JavaScript',
  cjs: 'JavaScript',
  py: 'Python',
  go: 'Go',
  rs: 'Rust',
  java: 'Java',
  kt: 'Kotlin',
  kts: 'Kotlin',
  swift: 'Swift',
  rb: 'Ruby',
  php: 'PHP',
  cs: 'C#',
  c: 'C',
  h: 'C',
  cc: 'C++',
  cpp: 'C++',
  hpp: 'C++',
  m: 'Objective-C',
  scala: 'Scala',
  ex: 'Elixir',
  exs: 'Elixir',
  erl: 'Erlang',
  hs: 'Haskell',
  lua: 'Lua',
  dart: 'Dart',
  vue: 'Vue',
  svelte: 'Svelte',
  sql: 'SQL',
  sh: 'shell',
  bash: 'shell',
  css: 'CSS',
  scss: 'SCSS',
  less: 'Less',
  html: 'HTML',
  proto: 'Protobuf',
  graphql: 'GraphQL',
  gql: 'GraphQL',
  sol: 'Solidity',
  zig: 'Zig',
  nim: 'Nim',
  clj: 'Clojure',
  ml: 'OCaml',
  r: 'R',
  jl: 'Julia',
  tf: 'Terraform',
};

/** Only the scanned languages (exports and imports). */
export const SCANNED = new Set(['ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'py', 'go', 'rs', 'vue', 'svelte']);

/** Whether generating the Pin reads the file (scanned sources and package manifests): callers read only those. */
export function pinReadsFile(path: string): boolean {
  return SCANNED.has(extOf(path)) || MANIFESTS.has(baseOf(path));
}

/** Folder names that say nothing about what the code does. */
export const NOISE_SEGMENTS = new Set(['src', 'lib', 'source', 'sources', 'pkg', 'internal', 'packages', 'apps', 'crates', 'modules', 'main', 'java', 'kotlin', 'com', 'org', 'net', 'io']);

export const WORD_STOP = new Set([
  'index',
  'main',
  'mod',
  'init',
  'util',
  'utils',
  'the',
  'and',
  'for',
  'of',
  'to',
  'in',
  'a',
  'an',
  'js',
  'ts',
  'tsx',
  'jsx',
  'py',
  'go',
  'rs',
  'test',
  'tests',
  'spec',
  'd',
  'config',
  'types',
  'type',
  'use',
  'get',
  'set',
]);

export const NODE_BUILTINS = new Set(
  (
    'assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns domain events fs ' +
    'http http2 https inspector module net os path perf_hooks process punycode querystring readline repl stream string_decoder ' +
    'sys timers tls trace_events tty url util v8 vm wasi worker_threads zlib test'
  ).split(' '),
);

export const PY_STDLIB = new Set(
  (
    '__future__ abc argparse array ast asyncio base64 bisect builtins calendar collections concurrent contextlib copy csv ' +
    'dataclasses datetime decimal difflib enum errno functools gc getpass glob gzip hashlib heapq hmac html http importlib ' +
    'inspect io ipaddress itertools json logging math mimetypes multiprocessing operator os pathlib pickle platform pprint ' +
    'queue random re secrets select shlex shutil signal socket sqlite3 ssl stat statistics string struct subprocess sys ' +
    'tempfile textwrap threading time timeit traceback types typing unittest urllib uuid warnings weakref xml zipfile zlib'
  ).split(' '),
);

export const RUST_SKIP = new Set(['std', 'core', 'alloc', 'crate', 'self', 'super']);

export const ENTRY_FILES = /^(?:index|main|mod|lib|__init__|app|server|cli)\.[a-z]+$/;

export const MAJOR_FILES = 4;

export function extOf(path: string): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  return dot > slash + 1 ? path.slice(dot + 1).toLowerCase() : '';
}

export function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

export function baseOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Normalised repository-relative path, or undefined when the file is in a skipped folder. */
export function normaliseRepoPath(p: string): string | undefined {
  let s = p.replace(/\\/g, '/');
  while (s.startsWith('./')) {
    s = s.slice(2);
  }
  s = s.replace(/^\/+/, '');
  if (s === '') {
    return undefined;
  }
  const segs = s.split('/');
  for (let i = 0; i < segs.length - 1; i++) {
    const seg = segs[i];
    if (SKIPPED_FOLDERS.has(seg) || seg.startsWith('.')) {
      return undefined;
    }
  }
  return s;
}

export interface FileScan {
  exports: string[];
  imports: string[];
}

/** Exported identifiers and imported package names of one source file (regex-based). */
export function scanSource(path: string, text: string): FileScan {
  const ext = extOf(path);
  const exports: string[] = [];
  const imports: string[] = [];
  let m: RegExpExecArray | null;
  if (ext === 'py') {
    const ex = /^(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z]\w*)/gm;
    while ((m = ex.exec(text))) {
      exports.push(m[1]);
    }
    const im = /^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import|import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*))/gm;
    while ((m = im.exec(text))) {
      if (m[1] !== undefined) {
        if (!m[1].startsWith('.')) {
          imports.push(m[1].split('.')[0]);
        }
      } else {
        for (const part of m[2].split(',')) {
          imports.push(part.trim().split('.')[0]);
        }
      }
    }
    return { exports, imports: imports.filter((x) => x && !PY_STDLIB.has(x)) };
  }
  if (ext === 'go') {
    const ex = /^(?:func[ \t]+(?:\([^)]*\)[ \t]*)?|type[ \t]+)([A-Z]\w*)/gm;
    while ((m = ex.exec(text))) {
      exports.push(m[1]);
    }
    const block = /^import[ \t]*\(([\s\S]*?)\)/gm;
    while ((m = block.exec(text))) {
      for (const q of m[1].matchAll(/"([^"\s]+)"/g)) {
        imports.push(q[1]);
      }
    }
    const single = /^import[ \t]+(?:[\w.]+[ \t]+)?"([^"\s]+)"/gm;
    while ((m = single.exec(text))) {
      imports.push(m[1]);
    }
    return { exports, imports: imports.filter((x) => x.split('/')[0].includes('.')).map((x) => x.split('/').slice(0, 3).join('/')) };
  }
  if (ext === 'rs') {
    const ex = /^[ \t]*pub(?:\([^)]*\))?[ \t]+(?:async[ \t]+)?(?:fn|struct|enum|trait|type|const|static|mod)[ \t]+([A-Za-z_]\w*)/gm;
    while ((m = ex.exec(text))) {
      exports.push(m[1]);
    }
    const im = /^[ \t]*(?:pub[ \t]+)?(?:use|extern[ \t]+crate)[ \t]+([A-Za-z_]\w*)/gm;
    while ((m = im.exec(text))) {
      if (!RUST_SKIP.has(m[1])) {
        imports.push(m[1]);
      }
    }
    return { exports, imports };
  }
  // TS / JS (and the script part of .vue / .svelte).
  const ex =
    /^[ \t]*export[ \t]+(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?(?:async[ \t]+)?(?:function\*?|class|const|let|var|interface|type|enum|namespace)[ \t]*(?:\*[ \t]*)?([A-Za-z_$][\w$]*)/gm;
  while ((m = ex.exec(text))) {
    exports.push(m[1]);
  }
  const im = /\bfrom[ \t]*['"]([^'"\n]+)['"]|\bimport[ \t]*(?:\([ \t]*)?['"]([^'"\n]+)['"]|\brequire[ \t]*\([ \t]*['"]([^'"\n]+)['"]/g;
  while ((m = im.exec(text))) {
    const spec = m[1] ?? m[2] ?? m[3];
    const pkg = packageOfSpecifier(spec);
    if (pkg) {
      imports.push(pkg);
    }
  }
  return { exports, imports };
}

/** `@scope/pkg/sub` → `@scope/pkg`, `pkg/sub` → `pkg`; relative paths, `node:` and builtins → undefined. */
export function packageOfSpecifier(spec: string): string | undefined {
  if (!spec || /^[./#~]/.test(spec) || spec.startsWith('node:') || spec.startsWith('@/') || /^[a-z]+:/i.test(spec)) {
    return undefined;
  }
  const segs = spec.split('/');
  const name = spec.startsWith('@') ? segs.slice(0, 2).join('/') : segs[0];
  if (NODE_BUILTINS.has(name) || (spec.startsWith('@') && segs.length < 2)) {
    return undefined;
  }
  return name;
}

export function splitIdentWords(s: string): string[] {
  return splitWords(s).filter((w) => w.length >= 2 && !/^\d+$/.test(w) && !WORD_STOP.has(w));
}

export function manifestName(path: string, readFile: (p: string) => string | undefined): { name?: string; deps?: Set<string> } {
  const text = readFile(path);
  if (text === undefined) {
    return {};
  }
  const base = baseOf(path);
  try {
    if (base === 'package.json' || base === 'composer.json' || base === 'deno.json') {
      const j = JSON.parse(text) as Record<string, unknown>;
      const deps = new Set<string>();
      for (const k of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
        const d = j[k];
        if (d && typeof d === 'object') {
          for (const name of Object.keys(d)) {
            deps.add(name);
          }
        }
      }
      return { name: typeof j.name === 'string' ? j.name : undefined, deps: base === 'package.json' ? deps : undefined };
    }
  } catch {
    return {};
  }
  const m = /^\s*(?:name|module)\s*(?:=\s*)?"?([^"\s]+)"?/m.exec(text);
  return { name: m?.[1] };
}

/** Groups files into modules and suggests their keywords (no merge). */

export function joinPath(a: string, b: string): string {
  return a === '' ? b : b === '' ? a : `${a}/${b}`;
}
