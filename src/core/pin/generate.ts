/**
 * Generates the Pin (specs/INDEX.md) for a repository from its file list, and merges it with the
 * existing one without losing what a person wrote.
 *
 * Modules: per package (the repository root, and every folder with its own package.json,
 * Cargo.toml, go.mod, pyproject.toml, …) the source folders down to two levels (src/api,
 * db/migrations), and a third level for major subfolders (at least MAJOR_FILES source files and a
 * fifth of their parent's).
 * A module is named by its folder path; files directly in a package folder form the package's own
 * module (`(root)` for the repository root).
 * Keywords: folder words, the package name, the packages the module imports, exported
 * identifiers (TS/JS, Python, Go, Rust; by regex) and words of file names (camelCase, kebab-case
 * and snake_case split).
 * Merge: existing modules keep their order, name, description, spec and hand-added keywords and
 * files; a generated module with the same name only adds missing keywords and files; a generated
 * module whose files the existing Pin already lists is not added. Running it again changes nothing.
 */
import { type PinDoc, type PinModule, cleanPath, splitWords, stem } from './format';

export interface GenerateOptions {
  /** Most files listed per module (the folder itself is listed first when there are more). Default 12. */
  readonly maxFiles?: number;
  /** Most keywords per generated module. Default 24. */
  readonly maxKeywords?: number;
  /** Bytes of each source file scanned for exports and imports. Default 32768. */
  readonly scanBytes?: number;
}

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

const MANIFESTS = new Set(['package.json', 'Cargo.toml', 'go.mod', 'pyproject.toml', 'setup.py', 'composer.json', 'Gemfile', 'pom.xml', 'build.gradle', 'build.gradle.kts', 'deno.json']);

const LANG: Record<string, string> = {
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
const SCANNED = new Set(['ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'py', 'go', 'rs', 'vue', 'svelte']);

/** Whether generating the Pin reads the file (scanned sources and package manifests): callers read only those. */
export function pinReadsFile(path: string): boolean {
  return SCANNED.has(extOf(path)) || MANIFESTS.has(baseOf(path));
}

/** Folder names that say nothing about what the code does. */
const NOISE_SEGMENTS = new Set(['src', 'lib', 'source', 'sources', 'pkg', 'internal', 'packages', 'apps', 'crates', 'modules', 'main', 'java', 'kotlin', 'com', 'org', 'net', 'io']);

const WORD_STOP = new Set([
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

const NODE_BUILTINS = new Set(
  (
    'assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns domain events fs ' +
    'http http2 https inspector module net os path perf_hooks process punycode querystring readline repl stream string_decoder ' +
    'sys timers tls trace_events tty url util v8 vm wasi worker_threads zlib test'
  ).split(' '),
);

const PY_STDLIB = new Set(
  (
    '__future__ abc argparse array ast asyncio base64 bisect builtins calendar collections concurrent contextlib copy csv ' +
    'dataclasses datetime decimal difflib enum errno functools gc getpass glob gzip hashlib heapq hmac html http importlib ' +
    'inspect io ipaddress itertools json logging math mimetypes multiprocessing operator os pathlib pickle platform pprint ' +
    'queue random re secrets select shlex shutil signal socket sqlite3 ssl stat statistics string struct subprocess sys ' +
    'tempfile textwrap threading time timeit traceback types typing unittest urllib uuid warnings weakref xml zipfile zlib'
  ).split(' '),
);

const RUST_SKIP = new Set(['std', 'core', 'alloc', 'crate', 'self', 'super']);

const ENTRY_FILES = /^(?:index|main|mod|lib|__init__|app|server|cli)\.[a-z]+$/;

const MAJOR_FILES = 4;

function extOf(path: string): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  return dot > slash + 1 ? path.slice(dot + 1).toLowerCase() : '';
}

function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

function baseOf(path: string): string {
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

export interface GeneratedModule {
  /** Folder path ('' for the repository root). */
  readonly folder: string;
  readonly name: string;
  readonly description: string;
  readonly keywords: string[];
  /** The listed files (at most maxFiles, the folder first when truncated). */
  readonly files: string[];
  /** Every source file of the module. */
  readonly allFiles: string[];
}

interface FileScan {
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
    /^[ \t]*export[ \t]+(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?(?:async[ \t]+)?(?:function\*?|class|const|let|var|interface|type|enum|namespace)[ \t]*\*?[ \t]*([A-Za-z_$][\w$]*)/gm;
  while ((m = ex.exec(text))) {
    exports.push(m[1]);
  }
  const im = /\bfrom[ \t]*['"]([^'"\n]+)['"]|\bimport[ \t]*\(?[ \t]*['"]([^'"\n]+)['"]|\brequire[ \t]*\([ \t]*['"]([^'"\n]+)['"]/g;
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

function splitIdentWords(s: string): string[] {
  return splitWords(s).filter((w) => w.length >= 2 && !/^\d+$/.test(w) && !WORD_STOP.has(w));
}

function manifestName(path: string, readFile: (p: string) => string | undefined): { name?: string; deps?: Set<string> } {
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
  const m = /^\s*(?:name|module)\s*=?\s*"?([^"\s]+)"?/m.exec(text);
  return { name: m?.[1] };
}

/** Groups files into modules and suggests their keywords (no merge). */
export function planModules(files: readonly string[], readFile: (path: string) => string | undefined, options: GenerateOptions = {}): GeneratedModule[] {
  const maxFiles = options.maxFiles ?? 12;
  const maxKeywords = options.maxKeywords ?? 24;
  const scanBytes = options.scanBytes ?? 32768;
  const paths: string[] = [];
  const seen = new Set<string>();
  for (const f of files) {
    const p = normaliseRepoPath(f);
    if (p !== undefined && !seen.has(p)) {
      seen.add(p);
      paths.push(p);
    }
  }
  paths.sort();
  // Package roots.
  const pkgRoots = new Set<string>(['']);
  const folderNames = new Set<string>();
  for (const p of paths) {
    if (MANIFESTS.has(baseOf(p))) {
      pkgRoots.add(dirOf(p));
    }
    const segs = p.split('/');
    for (let i = 0; i < segs.length - 1; i++) {
      folderNames.add(segs[i].toLowerCase());
    }
  }
  const pkgOfDir = new Map<string, string>();
  const pkgOf = (dir: string): string => {
    const hit = pkgOfDir.get(dir);
    if (hit !== undefined) {
      return hit;
    }
    const r = pkgRoots.has(dir) ? dir : dir === '' ? '' : pkgOf(dirOf(dir));
    pkgOfDir.set(dir, r);
    return r;
  };
  // Source files and the number of source files under each folder.
  const sources = paths.filter((p) => LANG[extOf(p)] !== undefined);
  const subtree = new Map<string, number>();
  for (const p of sources) {
    let d = dirOf(p);
    for (;;) {
      subtree.set(d, (subtree.get(d) ?? 0) + 1);
      if (d === '') {
        break;
      }
      d = dirOf(d);
    }
  }
  // The module folder of each source file.
  const byModule = new Map<string, string[]>();
  const folderOf = new Map<string, string>();
  const moduleFolder = (dir: string): string => {
    const hit = folderOf.get(dir);
    if (hit !== undefined) {
      return hit;
    }
    const pkg = pkgOf(dir);
    const rel = pkg === '' ? dir : dir.slice(pkg.length + 1);
    const segs = rel === '' ? [] : rel.split('/');
    let depth = Math.min(segs.length, 2);
    if (segs.length >= 3) {
      // A major subfolder: enough files of its own, and a real share (1/5) of its parent's.
      const third = joinPath(pkg, segs.slice(0, 3).join('/'));
      const parent = joinPath(pkg, segs.slice(0, 2).join('/'));
      const n = subtree.get(third) ?? 0;
      if (n >= MAJOR_FILES && n * 5 >= (subtree.get(parent) ?? 0)) {
        depth = 3;
      }
    }
    const folder = joinPath(pkg, segs.slice(0, depth).join('/'));
    folderOf.set(dir, folder);
    return folder;
  };
  for (const p of sources) {
    const folder = moduleFolder(dirOf(p));
    let list = byModule.get(folder);
    if (!list) {
      list = [];
      byModule.set(folder, list);
    }
    list.push(p);
  }
  // Manifest data per package.
  const manifests = new Map<string, { name?: string; deps?: Set<string> }>();
  const manifestOf = (pkg: string) => {
    let m = manifests.get(pkg);
    if (!m) {
      m = {};
      for (const base of MANIFESTS) {
        const path = joinPath(pkg, base);
        if (seen.has(path)) {
          const got = manifestName(path, readFile);
          m = { name: m.name ?? got.name, deps: m.deps ?? got.deps };
        }
      }
      manifests.set(pkg, m);
    }
    return m;
  };
  const out: GeneratedModule[] = [];
  for (const folder of [...byModule.keys()].sort()) {
    const mfiles = byModule.get(folder)!;
    const pkg = pkgOf(folder);
    const manifest = manifestOf(pkg);
    const exportCount = new Map<string, number>();
    const identifiers: string[] = [];
    const identSeen = new Set<string>();
    const depCount = new Map<string, number>();
    const fileWordCount = new Map<string, number>();
    const langs = new Map<string, number>();
    for (const f of mfiles) {
      const ext = extOf(f);
      langs.set(LANG[ext], (langs.get(LANG[ext]) ?? 0) + 1);
      for (const w of splitIdentWords(baseOf(f).replace(/\.[^.]*$/, ''))) {
        fileWordCount.set(w, (fileWordCount.get(w) ?? 0) + 1);
      }
      if (!SCANNED.has(ext)) {
        continue;
      }
      let text = readFile(f);
      if (text === undefined) {
        continue;
      }
      if (text.length > scanBytes) {
        text = text.slice(0, scanBytes);
      }
      if (text.includes('\u0000')) {
        continue;
      }
      const scan = scanSource(f, text);
      exportCount.set(f, scan.exports.length);
      for (const e of scan.exports) {
        if (!identSeen.has(e)) {
          identSeen.add(e);
          identifiers.push(e);
        }
      }
      // JS/TS imports are checked against package.json (path aliases such as @shared/x are not packages).
      const jsDeps = ext !== 'py' && ext !== 'go' && ext !== 'rs' && manifest.deps && manifest.deps.size > 0 ? manifest.deps : undefined;
      for (const d of new Set(scan.imports)) {
        if (jsDeps ? !jsDeps.has(d) : folderNames.has(d.replace(/^@/, '').split('/')[0].toLowerCase())) {
          continue;
        }
        depCount.set(d, (depCount.get(d) ?? 0) + 1);
      }
    }
    // Keywords: folder words, package name, dependencies, exported identifiers, file-name words.
    const kw: string[] = [];
    const kwSeen = new Set<string>();
    const add = (k: string, limit = maxKeywords) => {
      const key = k.toLowerCase();
      if (k && !kwSeen.has(key) && !kwSeen.has(stem(key)) && kw.length < limit) {
        kwSeen.add(key);
        kwSeen.add(stem(key));
        kw.push(k);
      }
    };
    const rel = pkg === '' ? folder : folder.slice(pkg.length + 1);
    for (const seg of (rel === '' ? (pkg === '' ? [] : [baseOf(pkg)]) : rel.split('/')).filter((s) => !NOISE_SEGMENTS.has(s.toLowerCase()))) {
      for (const w of splitIdentWords(seg)) {
        add(w);
      }
    }
    if (manifest.name && pkg !== '') {
      add(manifest.name);
    }
    const byCount = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([k]) => k);
    for (const d of byCount(depCount).slice(0, 8)) {
      add(d);
    }
    const identLimit = Math.min(maxKeywords, kw.length + 10);
    for (const id of identifiers) {
      if (id.length >= 3) {
        add(id, identLimit);
      }
    }
    for (const w of byCount(fileWordCount)) {
      add(w);
    }
    // Files: entry files first, then those exporting the most, then by path.
    const ranked = [...mfiles].sort((a, b) => {
      const ea = ENTRY_FILES.test(baseOf(a)) ? 0 : 1;
      const eb = ENTRY_FILES.test(baseOf(b)) ? 0 : 1;
      return ea - eb || (exportCount.get(b) ?? 0) - (exportCount.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0);
    });
    const listed = mfiles.length > maxFiles ? [`${folder === '' ? '.' : folder}/`, ...ranked.slice(0, maxFiles - 1)] : [...mfiles];
    const langList = byCount(langs).slice(0, 3).join(', ');
    const description =
      folder === ''
        ? `Source files at the repository root (${langList}).`
        : pkg === folder
          ? `Package ${manifest.name ? `\`${manifest.name}\` ` : ''}in ${folder}/ (${langList}).`
          : `Code in ${folder}/ (${langList}).`;
    out.push({ folder, name: folder === '' ? '(root)' : folder, description, keywords: kw, files: listed, allFiles: mfiles });
  }
  return out;
}

function joinPath(a: string, b: string): string {
  return a === '' ? b : b === '' ? a : `${a}/${b}`;
}

export const DEFAULT_PREAMBLE = [
  '# The Pin',
  '',
  'Discovery index of what already exists. Before implementing a story, search this file for the',
  "story's keywords, open the listed files and the linked spec, and extend what is there instead of",
  'inventing a parallel version. One entry per module: `## <Module>`, an optional description,',
  '`Keywords:` (synonyms, library names, related terms), `Files:` and an optional `Spec:` link.',
  'Generated by Ralph Workbench (`ralph-workbench pin --write`); edit freely: names, descriptions,',
  'keywords and spec links you add are kept when it is generated again.',
  '',
];

function normName(s: string): string {
  return s
    .replace(/[`*_]/g, '')
    .replace(/\/+$/, '')
    .trim()
    .toLowerCase();
}

function globRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*\*/g, '\u0000')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]')
    .replace(/\u0000/g, '.*');
  return new RegExp(`^${body}(?:/.*)?$`);
}

/** Whether a Files entry covers a path: the same file, or a folder (`src/api/`, `src/api`) holding it. */
function covers(entry: string, path: string): boolean {
  const e = entry.replace(/^\.\//, '').replace(/\/+$/, '');
  if (e === '.' || e === '') {
    return true;
  }
  if (/[*?]/.test(e)) {
    return globRegExp(e).test(path);
  }
  return path === e || path.startsWith(`${e}/`);
}

/** A fast "is this path listed?" test for many Files entries: exact files, folders and globs. */
function coverage(entries: readonly string[]): (path: string) => boolean {
  const exact = new Set<string>();
  const folders = new Set<string>();
  const globs: RegExp[] = [];
  let all = false;
  for (const raw of entries) {
    const e = raw.replace(/^\.\//, '');
    const bare = e.replace(/\/+$/, '');
    if (bare === '' || bare === '.') {
      all = true;
    } else if (/[*?]/.test(bare)) {
      globs.push(globRegExp(bare));
    } else {
      exact.add(bare);
      // Anything without a file extension, or written with a trailing slash, may be a folder.
      if (e.endsWith('/') || !/\.[A-Za-z0-9]+$/.test(baseOf(bare))) {
        folders.add(bare);
      }
    }
  }
  return (p: string) => {
    if (all || exact.has(p)) {
      return true;
    }
    if (folders.size > 0) {
      for (let d = dirOf(p); d !== ''; d = dirOf(d)) {
        if (folders.has(d)) {
          return true;
        }
      }
    }
    return globs.length > 0 && globs.some((g) => g.test(p));
  };
}

/**
 * The Pin for a repository, merged with `existing` (see the module comment). `files` are
 * repository-relative paths (e.g. from `git ls-files`); `readFile` returns a file's text or
 * undefined. The result keeps `existing`'s modules (and their formatting) first.
 */
export function generatePin(
  files: readonly string[],
  readFile: (path: string) => string | undefined,
  existing?: PinDoc,
  options: GenerateOptions = {},
): PinDoc {
  const generated = planModules(files, readFile, options);
  const hasExisting = existing !== undefined && (existing.modules.length > 0 || existing.preamble.some((l) => l.trim() !== ''));
  const doc: PinDoc = hasExisting
    ? { ...existing, preamble: [...existing.preamble], modules: existing.modules.map((m) => ({ ...m, description: [...m.description], keywords: [...m.keywords], files: [...m.files] })) }
    : { preamble: [...DEFAULT_PREAMBLE], modules: [], eol: existing?.eol ?? '\n', finalEol: true, moduleLevel: existing?.moduleLevel ?? 2 };
  const byName = new Map<string, PinModule>();
  for (const m of doc.modules) {
    if (!byName.has(normName(m.name))) {
      byName.set(normName(m.name), m);
    }
  }
  const isCovered = coverage(doc.modules.flatMap((m) => m.files.map(cleanPath)));
  for (const g of generated) {
    const match = byName.get(normName(g.name));
    if (match) {
      const have = new Set(match.keywords.map((k) => k.toLowerCase()));
      for (const k of g.keywords) {
        if (!have.has(k.toLowerCase())) {
          have.add(k.toLowerCase());
          match.keywords.push(k);
        }
      }
      const own = match.files.map(cleanPath);
      for (const f of g.files) {
        if (!own.some((e) => e === f || (e !== f && (e.endsWith('/') || /[*?]/.test(e)) && covers(e, f)))) {
          own.push(f);
          match.files.push(f);
        }
      }
      continue;
    }
    if (g.allFiles.every(isCovered)) {
      continue;
    }
    const mod: PinModule = { name: g.name, description: [g.description], keywords: [...g.keywords], files: [...g.files] };
    doc.modules.push(mod);
    byName.set(normName(g.name), mod);
  }
  return doc;
}

/** Files entries of the Pin that match no file of the repository (neither a file nor a folder). */
export function stalePinFiles(doc: PinDoc, files: readonly string[]): { module: string; file: string }[] {
  const paths = files.map((f) => f.replace(/\\/g, '/').replace(/^\.\//, ''));
  const set = new Set(paths);
  const dirs = new Set<string>();
  for (const p of paths) {
    for (let d = dirOf(p); d !== '' && !dirs.has(d); d = dirOf(d)) {
      dirs.add(d);
    }
  }
  const out: { module: string; file: string }[] = [];
  for (const m of doc.modules) {
    for (const raw of m.files) {
      const f = cleanPath(raw).replace(/^\.\//, '');
      const bare = f.replace(/\/+$/, '');
      if (bare === '' || bare === '.' || set.has(f) || dirs.has(bare) || /[*?]/.test(f)) {
        continue;
      }
      out.push({ module: m.name, file: f });
    }
  }
  return out;
}
