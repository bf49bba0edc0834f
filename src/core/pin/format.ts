/**
 * The Pin: `specs/INDEX.md`, the discovery index agents read before inventing code.
 *
 * Format (also in docs/pin-format.md):
 *
 *   # <Project> — The Pin                     <- preamble: anything before the first module
 *   Free text: how to use the index.
 *
 *   ## <Module name>                          <- one `##` heading per module (`###` accepted)
 *   <Optional description, one or more lines>
 *   Keywords: word, another word, library-name   <- comma-separated (synonyms, libraries, terms)
 *   Files: src/a.ts, src/b/                   <- comma-separated, or bullets under `Files:`
 *   Spec: specs/module.md                     <- optional
 *
 * Hand-written variations are read too: `**Keywords:**`, `- Keywords:`, any letter case,
 * bullets under `Keywords:` / `Files:`, backticked paths, markdown links, `Specs:`, wrapped
 * (indented) continuation lines. Lines of a module that are none of these are kept as they are,
 * so writing a parsed file back gives the same bytes, and changing one field rewrites only that
 * field's lines, in the file's own style.
 */
import { splitList } from '../text';

export interface PinModule {
  name: string;
  /** Description lines (between the heading and the first field), trimmed. */
  description: string[];
  keywords: string[];
  files: string[];
  spec?: string;
  /** 0-based heading line in the parsed text (absent for new modules). */
  readonly line?: number;
  /** Exclusive end line in the parsed text. */
  readonly endLine?: number;
  /** 0-based lines of the fields in the parsed text. */
  readonly fieldLines?: { readonly keywords?: number; readonly files?: number; readonly spec?: number };
  /** How the module was written, for a faithful write-back. Internal: copy it along, never edit it. */
  readonly source?: PinModuleSource;
}

export interface PinModuleSource {
  readonly lines: readonly string[];
  readonly level: number;
  /** The heading text as parsed (the name before edits). */
  readonly name: string;
  readonly description: readonly string[];
  readonly keywords: readonly string[];
  readonly files: readonly string[];
  readonly spec?: string;
  /** Line ranges [start, end) relative to the module's first line. */
  readonly ranges: {
    readonly description?: readonly [number, number];
    readonly keywords?: FieldRange;
    readonly files?: FieldRange;
    readonly spec?: FieldRange;
  };
}

interface FieldRange {
  readonly start: number;
  readonly end: number;
  /** The label as written, e.g. `**Keywords:**` or `- Files:`. */
  readonly prefix: string;
  /** Values were written as bullets under the label. */
  readonly bullets: boolean;
  /** Bullet prefix used, e.g. `- ` or `  - `. */
  readonly bulletPrefix: string;
  /** Whether values were wrapped in backticks. */
  readonly ticks: boolean;
}

export interface PinDoc {
  /** Lines before the first module, as written. */
  preamble: string[];
  modules: PinModule[];
  eol: '\n' | '\r\n';
  /** Whether the text ended with a line end. */
  finalEol: boolean;
  /** Heading level for new modules (the level the file uses). */
  moduleLevel: number;
}

// ---------------------------------------------------------------------------------------------

const HEADING = /^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^[ \t]{0,3}(```|~~~)/;
const FIELD = /^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?[ \t]*(keywords?|tags|synonyms|files?|paths?|specs?|spec[ \t]+link)[ \t]*(?::[ \t]*(?:\*\*|__)|(?:\*\*|__)[ \t]*:|:)[ \t]*(.*?)[ \t]*$/i;
const BULLET = /^([ \t]*)[-*+][ \t]+(.*?)[ \t]*$/;

type FieldName = 'keywords' | 'files' | 'spec';

function fieldOf(line: string): { field: FieldName; rest: string; prefix: string } | undefined {
  const m = FIELD.exec(line);
  if (!m) {
    return undefined;
  }
  const label = m[1].toLowerCase();
  const field: FieldName = label.startsWith('spec') ? 'spec' : label.startsWith('file') || label.startsWith('path') ? 'files' : 'keywords';
  const prefix = line.slice(0, line.length - m[2].length - (line.length - line.trimEnd().length)).replace(/[ \t]*$/, ' ');
  return { field, rest: m[2], prefix };
}

/** `src/a.ts`, [a](src/a.ts), `src/a.ts` — notes → src/a.ts */
export function cleanPath(raw: string): string {
  let s = raw.trim();
  const link = /^\[([^\]]*)\]\(([^)\s]*)[^)]*\)/.exec(s);
  if (link) {
    return link[2] || link[1];
  }
  const tick = /^`([^`]+)`/.exec(s);
  if (tick) {
    return tick[1].trim();
  }
  s = s.replace(/\s+(?:-|–|—|:)\s+.*$/, '').replace(/\s*\([^)]*\)\s*$/, '');
  return s
    .replace(/`/g, '')
    .replace(/^(?:\*\*|__)|(?:\*\*|__)$/g, '')
    .trim();
}

function cleanKeyword(raw: string): string {
  return raw
    .trim()
    .replace(/^[`"']+|[`"']+$/g, '')
    .replace(/\.$/, '')
    .trim();
}


function splitLinesKeep(text: string): { lines: string[]; finalEol: boolean } {
  const lines = text.split(/\r\n|\n|\r/);
  const finalEol = lines.length > 1 && lines[lines.length - 1] === '';
  if (finalEol || text === '') {
    lines.pop();
  }
  return { lines, finalEol };
}

/** Spec values that say "there is none": `N/A`, `none`, `-`, `TBD`, … */
const NO_SPEC = /^(?:n\/?a|none|null|nil|no|-+|—|–|tbd|todo|\?+|\(none\))\.?$/i;

/** Whether a spec value names a file: not a "none" word, and not prose (`See README.md and AGENTS.md`). */
export function isSpecPath(value: string): boolean {
  const v = value.trim();
  return v !== '' && !NO_SPEC.test(v) && !/\s/.test(v);
}

/**
 * When the Pin file has content but no module entries (a table, a checklist: another format),
 * the sentence that says so; undefined otherwise.
 */
export function pinFormatNote(doc: PinDoc, fileName: string): string | undefined {
  if (doc.modules.length > 0 || !doc.preamble.some((l) => l.trim() !== '')) {
    return undefined;
  }
  return `no \`### Module\` entries found in ${fileName} (it is written in another format); Generate the Pin adds module entries and keeps what is there.`;
}

export function parsePin(text: string): PinDoc {
  const eol: '\n' | '\r\n' = text.includes('\r\n') ? '\r\n' : '\n';
  const { lines, finalEol } = splitLinesKeep(text);
  // Module headings: level >= 2, outside code fences. The module level is the most frequent one
  // among headings whose block has a field; deeper headings inside a module stay in it.
  const heads: { line: number; level: number; name: string; hasField: boolean }[] = [];
  let fence = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (FENCE.test(l)) {
      fence = !fence;
      continue;
    }
    if (fence) {
      continue;
    }
    const h = l.charCodeAt(0) === 35 ? HEADING.exec(l) : null;
    if (h && h[1].length >= 2) {
      heads.push({ line: i, level: h[1].length, name: h[2].replace(/^[*_`]+|[*_`]+$/g, '').trim(), hasField: false });
    } else if (heads.length > 0 && fieldOf(l)) {
      heads[heads.length - 1].hasField = true;
    }
  }
  const counts = new Map<number, number>();
  for (const h of heads) {
    if (h.hasField) {
      counts.set(h.level, (counts.get(h.level) ?? 0) + 1);
    }
  }
  let moduleLevel = 2;
  let best = 0;
  for (const [level, c] of [...counts].sort((a, b) => a[0] - b[0])) {
    if (c > best) {
      best = c;
      moduleLevel = level;
    }
  }
  // A heading starts a module when it is at the module level or above it, or deeper but with fields
  // of its own when no module is open.
  const starts = heads.filter((h) => h.level <= moduleLevel || h.hasField);
  const modules: PinModule[] = [];
  const preambleEnd = starts.length > 0 ? starts[0].line : lines.length;
  for (let k = 0; k < starts.length; k++) {
    const s = starts[k];
    const end = k + 1 < starts.length ? starts[k + 1].line : lines.length;
    modules.push(parseModule(lines, s.line, end, s.level, s.name));
  }
  return { preamble: lines.slice(0, preambleEnd), modules, eol, finalEol, moduleLevel };
}

function parseModule(lines: readonly string[], start: number, end: number, level: number, name: string): PinModule {
  const description: string[] = [];
  let descRange: [number, number] | undefined;
  const ranges: { keywords?: FieldRange; files?: FieldRange; spec?: FieldRange } = {};
  const values: { keywords: string[]; files: string[]; spec?: string } = { keywords: [], files: [] };
  const fieldLines: { keywords?: number; files?: number; spec?: number } = {};
  let sawField = false;
  let fence = false;
  let i = start + 1;
  while (i < end) {
    const line = lines[i];
    if (FENCE.test(line)) {
      fence = !fence;
    }
    const f = fence ? undefined : fieldOf(line);
    if (f && ranges[f.field] === undefined) {
      sawField = true;
      fieldLines[f.field] = i;
      const vals: string[] = [];
      let j = i + 1;
      let bullets = false;
      let bulletPrefix = '- ';
      let ticks = /`/.test(f.rest);
      const take = (s: string) => {
        for (const v of splitList(s)) {
          vals.push(v);
        }
      };
      take(f.rest);
      // Bullets under the label, or indented continuation lines.
      while (j < end) {
        const l = lines[j];
        if (l.trim() === '' || fieldOf(l) || HEADING.test(l)) {
          break;
        }
        const b = BULLET.exec(l);
        if (b && f.rest.trim() === '') {
          bullets = true;
          bulletPrefix = l.slice(0, l.length - l.trimStart().length) + l.trimStart().slice(0, l.trimStart().indexOf(b[2]));
          ticks ||= /`/.test(b[2]);
          if (f.field === 'keywords') {
            take(b[2]);
          } else {
            vals.push(b[2]);
          }
          j++;
        } else if (!b && /^[ \t]+\S/.test(l) && f.rest.trim() !== '') {
          take(l);
          j++;
        } else {
          break;
        }
      }
      ranges[f.field] = { start: i - start, end: j - start, prefix: f.prefix, bullets, bulletPrefix, ticks };
      if (f.field === 'keywords') {
        values.keywords = dedupe(vals.map(cleanKeyword).filter((v) => v !== ''));
      } else if (f.field === 'files') {
        values.files = dedupe(vals.map(cleanPath).filter((v) => v !== ''));
      } else {
        const v = vals.map(cleanPath).filter((x) => x !== '' && isSpecPath(x));
        values.spec = v.length > 0 ? v.join(', ') : undefined;
      }
      i = j;
      continue;
    }
    if (!sawField && !fence && line.trim() !== '' && !HEADING.test(line)) {
      if (descRange === undefined) {
        descRange = [i - start, i - start + 1];
      }
      if (descRange[1] === i - start) {
        descRange[1] = i - start + 1;
        description.push(line.trim());
      } else if (descRange[0] === i - start) {
        description.push(line.trim());
      }
    }
    i++;
  }
  const source: PinModuleSource = {
    lines: lines.slice(start, end),
    level,
    name,
    description: [...description],
    keywords: [...values.keywords],
    files: [...values.files],
    spec: values.spec,
    ranges: { description: descRange, ...ranges },
  };
  return {
    name,
    description,
    keywords: values.keywords,
    files: values.files,
    spec: values.spec,
    line: start,
    endLine: end,
    fieldLines,
    source,
  };
}

function dedupe(list: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const v of list) {
    const k = v.toLowerCase();
    if (!seen.has(k)) {
      seen.add(k);
      out.push(v);
    }
  }
  return out;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

// ---------------------------------------------------------------------------------------------

/** Writes a Pin. A parsed document written back unchanged gives the same bytes. */
export function writePin(doc: PinDoc): string {
  const out: string[] = [...doc.preamble];
  for (const m of doc.modules) {
    // Modules are separated by a blank line.
    if (out.length > 0 && out[out.length - 1].trim() !== '') {
      out.push('');
    }
    for (const l of moduleLines(m, doc.moduleLevel)) {
      out.push(l);
    }
  }
  if (out.length === 0) {
    return '';
  }
  return out.join(doc.eol) + (doc.finalEol ? doc.eol : '');
}

function renderField(field: FieldName, values: readonly string[], r: FieldRange | undefined): string[] {
  const label = field === 'keywords' ? 'Keywords: ' : field === 'files' ? 'Files: ' : 'Spec: ';
  const fmt = (v: string) => (field !== 'keywords' && (r?.ticks || /[,;()[\]\s]/.test(v)) && !/^`/.test(v) ? `\`${v}\`` : v);
  if (r?.bullets && field !== 'spec') {
    return [r.prefix.trimEnd(), ...values.map((v) => `${r.bulletPrefix}${fmt(v)}`)];
  }
  return [`${r ? r.prefix : label}${values.map(fmt).join(', ')}`];
}

function moduleLines(m: PinModule, level: number): string[] {
  const src = m.source;
  if (!src) {
    const lines = [`${'#'.repeat(level)} ${m.name}`, ...m.description];
    if (m.keywords.length > 0) {
      lines.push(renderField('keywords', m.keywords, undefined)[0]);
    }
    if (m.files.length > 0) {
      lines.push(renderField('files', m.files, undefined)[0]);
    }
    if (m.spec) {
      lines.push(renderField('spec', [m.spec], undefined)[0]);
    }
    return lines;
  }
  // Replace only what changed, in the module's own style.
  type Patch = { start: number; end: number; lines: string[] };
  const patches: Patch[] = [];
  if (m.name !== src.name) {
    patches.push({ start: 0, end: 1, lines: [`${'#'.repeat(src.level)} ${m.name}`] });
  }
  const r = src.ranges;
  // Where new fields go: after the last existing field, else after the description, else after the heading.
  const fieldEnds = [r.keywords?.end, r.files?.end, r.spec?.end].filter((x): x is number => x !== undefined);
  const insertAt = fieldEnds.length > 0 ? Math.max(...fieldEnds) : r.description ? r.description[1] : 1;
  if (!sameList(m.description, src.description)) {
    if (r.description) {
      patches.push({ start: r.description[0], end: r.description[1], lines: [...m.description] });
    } else {
      patches.push({ start: 1, end: 1, lines: [...m.description] });
    }
  }
  const inserts: string[] = [];
  const fields: [FieldName, readonly string[], readonly string[]][] = [
    ['keywords', m.keywords, src.keywords],
    ['files', m.files, src.files],
    ['spec', m.spec ? [m.spec] : [], src.spec ? [src.spec] : []],
  ];
  for (const [field, now, before] of fields) {
    if (sameList(now, before)) {
      continue;
    }
    const fr = r[field];
    if (fr && field !== 'spec' && before.length > 0 && now.length > before.length && sameList(now.slice(0, before.length), before)) {
      // Values appended: keep the lines as written (notes and all) and add the new values.
      const added = now.slice(before.length);
      if (fr.bullets) {
        patches.push({ start: fr.end, end: fr.end, lines: renderField(field, added, fr).slice(1) });
      } else {
        const lastLine = src.lines[fr.end - 1].replace(/[ \t,]*$/, '');
        const tail = renderField(field, added, { ...fr, prefix: '' })[0];
        patches.push({ start: fr.end - 1, end: fr.end, lines: [`${lastLine}, ${tail}`] });
      }
    } else if (fr) {
      patches.push({ start: fr.start, end: fr.end, lines: now.length > 0 ? renderField(field, now, fr) : [] });
    } else if (now.length > 0) {
      inserts.push(...renderField(field, now, undefined));
    }
  }
  if (inserts.length > 0) {
    patches.push({ start: insertAt, end: insertAt, lines: inserts });
  }
  if (patches.length === 0) {
    return [...src.lines];
  }
  patches.sort((a, b) => a.start - b.start || a.end - b.end);
  const out: string[] = [];
  let at = 0;
  for (const p of patches) {
    if (p.start < at) {
      continue;
    }
    out.push(...src.lines.slice(at, p.start), ...p.lines);
    at = p.end;
  }
  out.push(...src.lines.slice(at));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Matching

const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could do does for from has have having i if in into is it its ' +
    'me my not of on or our so such that the their them then there these they this those to too us use used ' +
    'using via was we were what when where which while who will with without would you your want wants need ' +
    'needs able should must shall may also new add adds added make makes get gets set sets show shows story ' +
    'user users feature features allow allows support supports each every all any some more most other only ' +
    'same than very just like etc ie eg e g'
  ).split(/\s+/),
);

/** `FilterBar` → filter, bar; `priority-model_v2` → priority, model, v2; plurals stemmed; stop-words dropped. */
export function keywordsOf(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const w of splitWords(text)) {
    const s = stem(w);
    if (s.length < 2 || STOP_WORDS.has(w) || STOP_WORDS.has(s) || seen.has(s)) {
      continue;
    }
    seen.add(s);
    out.push(s);
  }
  return out;
}

/** Lowercased words: split on non-alphanumerics and camelCase boundaries. */
export function splitWords(text: string): string[] {
  const spaced = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase();
  return spaced.split(/[^a-z0-9]+/).filter((w) => w.length > 0);
}

/** Simple plural stemming: categories → category, boxes → box, tasks → task (not class, status). */
export function stem(w: string): string {
  if (w.length <= 3) {
    return w;
  }
  if (w.endsWith('ies') && w.length > 4) {
    return `${w.slice(0, -3)}y`;
  }
  if (/(?:ss|us|is|ws)$/.test(w)) {
    return w;
  }
  if (/(?:xes|ches|shes|sses|zes)$/.test(w)) {
    return w.slice(0, -2);
  }
  if (w.endsWith('s')) {
    return w.slice(0, -1);
  }
  return w;
}

export interface PinMatch {
  readonly module: PinModule;
  /** Index of the module in the document. */
  readonly index: number;
  readonly score: number;
  /** The words that matched, in the order of the query. */
  readonly matched: string[];
}

/**
 * Modules ranked by how well they match the words (e.g. a story's title and description).
 * Per module, each query word counts once with its best weight: 3 when it is a whole keyword or
 * part of a multi-word keyword whose words are all present (+1 per such phrase), 2 when it is a
 * word of the module name, 1 when it is a word of a partly matched keyword or of a file path.
 * Words that match many modules count less (weight × ln(1 + modules / modules matching the word)).
 * Ties keep document order. `words` is free text or a list of words; both go through {@link keywordsOf}.
 */
export function matchPin(doc: PinDoc, words: string | readonly string[]): PinMatch[] {
  const query = keywordsOf(typeof words === 'string' ? words : words.join(' '));
  const q = new Set(query);
  if (q.size === 0) {
    return [];
  }
  const per: { index: number; best: Map<string, number>; phrases: number }[] = [];
  const df = new Map<string, number>();
  doc.modules.forEach((module, index) => {
    const best = new Map<string, number>();
    const put = (w: string, weight: number) => {
      if ((best.get(w) ?? 0) < weight) {
        best.set(w, weight);
      }
    };
    let phrases = 0;
    for (const k of module.keywords) {
      const kw = keywordsOf(k);
      const present = kw.filter((w) => q.has(w));
      if (present.length === 0) {
        continue;
      }
      const whole = present.length === kw.length;
      if (whole && kw.length > 1) {
        phrases++;
      }
      for (const w of present) {
        put(w, whole ? 3 : 1);
      }
    }
    for (const w of keywordsOf(module.name)) {
      if (q.has(w)) {
        put(w, 2);
      }
    }
    for (const f of module.files) {
      for (const w of keywordsOf(f)) {
        if (q.has(w)) {
          put(w, 1);
        }
      }
    }
    if (best.size > 0) {
      per.push({ index, best, phrases });
      for (const w of best.keys()) {
        df.set(w, (df.get(w) ?? 0) + 1);
      }
    }
  });
  const n = Math.max(1, doc.modules.length);
  const out: PinMatch[] = per.map(({ index, best, phrases }) => {
    let score = phrases;
    for (const [w, weight] of best) {
      score += weight * Math.log(1 + n / (df.get(w) ?? 1));
    }
    return { module: doc.modules[index], index, score: Math.round(score * 1000) / 1000, matched: query.filter((w) => best.has(w)) };
  });
  return out.sort((a, b) => b.score - a.score || a.index - b.index);
}
