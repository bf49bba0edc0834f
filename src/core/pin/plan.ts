/** Planning the Pin's modules from a repository's file list: packages, module folders, keywords, listed files. */
import { stem } from './format';
import {
  baseOf,
  dirOf,
  ENTRY_FILES,
  extOf,
  joinPath,
  LANG,
  MAJOR_FILES,
  MANIFESTS,
  manifestName,
  NOISE_SEGMENTS,
  normaliseRepoPath,
  SCANNED,
  scanSource,
  splitIdentWords,
} from './scan';

export interface GenerateOptions {
  /** Most files listed per module (the folder itself is listed first when there are more). Default 12. */
  readonly maxFiles?: number;
  /** Most keywords per generated module. Default 24. */
  readonly maxKeywords?: number;
  /** Bytes of each source file scanned for exports and imports. Default 32768. */
  readonly scanBytes?: number;
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
