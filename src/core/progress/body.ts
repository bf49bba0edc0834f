/** Parsing the body of an entry (or a compacted story, or the patterns section) into its items. */
import { splitList } from '../text';
import {
  addMore,
  BULLET,
  cleanFile,
  FENCE,
  FILES_LABEL,
  headingOf,
  indentOf,
  labelOf,
  LEARNINGS_LABEL,
  NO_MORE,
  NUMBERED,
  SEPARATOR,
  stripIndent,
  THREAD,
  withoutDescription,
} from './lines';
import type { ProgressItem } from './model';

/** Singular labels that open one learning (`Gotcha: …`, `Note: …`), kept as part of its text. */
const ONE_LEARNING_LABEL = /^(?:gotcha|note|insight|takeaway|caveat|lesson|learning|tip|warning)$/i;

export interface MutableBody {
  thread?: { url: string; line: number };
  summary: ProgressItem[];
  files: string[];
  filesLine?: number;
  learnings: ProgressItem[];
  learningsLine?: number;
  learningsStyle?: { indent: number; bullet: boolean };
  separatorLine?: number;
}

/**
 * Parses the lines [from, to) of an entry (or a compacted story) after its heading. Returns the
 * body and the exclusive end of its last content line.
 */
export function parseBody(lines: readonly string[], from: number, to: number, headingLine: number): { body: MutableBody; contentEnd: number } {
  const body: MutableBody = { summary: [], files: [], learnings: [] };
  const seenFiles = new Set<string>();
  const addFile = (raw: string): void => {
    const f = cleanFile(raw);
    if (f && !seenFiles.has(f)) {
      seenFiles.add(f);
      body.files.push(f);
    }
  };
  let mode: 'summary' | 'files' | 'learnings' = 'summary';
  let modeIndent = -1;
  let last: ProgressItem | undefined;
  let contentEnd = headingLine + 1;
  let fence = false;
  const push = (list: ProgressItem[], text: string, line: number, indent: number): void => {
    last = { text, line, endLine: line + 1, indent, more: NO_MORE };
    list.push(last);
  };
  for (let i = from; i < to; i++) {
    const line = lines[i];
    if (fence) {
      if (FENCE.test(line)) {
        fence = false;
      }
      contentEnd = i + 1;
      if (last) {
        addMore(last, stripIndent(line, last.indent), i + 1);
      }
      continue;
    }
    // Indentation (columns) and the first non-blank character, without allocating.
    const len = line.length;
    let p = 0;
    let indent = 0;
    while (p < len) {
      const c = line.charCodeAt(p);
      if (c === 32) {
        indent++;
      } else if (c === 9) {
        indent += 4 - (indent % 4);
      } else {
        break;
      }
      p++;
    }
    if (p === len) {
      continue;
    }
    const c0 = line.charCodeAt(p);
    if ((c0 === 45 || c0 === 42 || c0 === 95 || c0 === 61) && p <= 3 && SEPARATOR.test(line)) {
      body.separatorLine = i;
      mode = 'summary';
      modeIndent = -1;
      last = undefined;
      continue;
    }
    contentEnd = i + 1;
    if ((c0 === 96 || c0 === 126) && FENCE.test(line)) {
      fence = true;
      if (last && indent > last.indent) {
        addMore(last, stripIndent(line, last.indent), i + 1);
      } else {
        push(mode === 'learnings' ? body.learnings : body.summary, line.trim(), i, indent);
      }
      continue;
    }
    // Bullet text (undefined when the line is not a bullet), and where the content starts.
    let bulletText: string | undefined;
    let q = p;
    if (c0 === 45 || c0 === 42 || c0 === 43 || c0 === 0x2022) {
      const c1 = p + 1 < len ? line.charCodeAt(p + 1) : -1;
      if (c1 === -1) {
        bulletText = '';
        q = len;
      } else if (c1 === 32 || c1 === 9) {
        bulletText = line.slice(p + 2).trim();
        q = p + 2;
        while (q < len && (line.charCodeAt(q) === 32 || line.charCodeAt(q) === 9)) {
          q++;
        }
      }
    } else if (c0 >= 48 && c0 <= 57) {
      const m = NUMBERED.exec(line);
      if (m) {
        bulletText = (m[1] ?? '').trim();
        q = len - (m[1] ?? '').length;
      }
    }
    const bullet = bulletText !== undefined;
    const cq = q < len ? line.charCodeAt(q) : -1;
    let lab: { label: string; rest: string } | undefined;
    if (cq === 42 || cq === 95 || cq === 35 || (cq !== -1 && line.indexOf(':', q) >= 0 && line.indexOf(':', q) - q <= 64)) {
      // Only labels that start with t(hread, takeaways), f(iles), c(hanged files, caveats), l(earnings, lessons),
      // k(ey notes), n(otes), g(otchas), i(nsights, important notes) matter.
      let r = q;
      while (r < len) {
        const c = line.charCodeAt(r);
        if (c === 42 || c === 95 || c === 35 || c === 32 || c === 9) {
          r++;
        } else {
          break;
        }
      }
      const c = r < len ? line.charCodeAt(r) | 0x20 : 0;
      if (c === 116 || c === 102 || c === 99 || c === 108 || c === 107 || c === 110 || c === 103 || c === 105) {
        lab = labelOf(line);
      }
    }
    const isFiles = lab !== undefined && FILES_LABEL.test(lab.label);
    const isLearnings = !isFiles && lab !== undefined && LEARNINGS_LABEL.test(lab.label);
    // Nested bullets and wrapped lines continue the item above.
    if (last && indent > last.indent && !isFiles && !isLearnings && !(bullet && mode === 'files')) {
      addMore(last, stripIndent(line, last.indent), i + 1);
      continue;
    }
    const th = lab !== undefined && !body.thread && /^thread$/i.test(lab.label) ? THREAD.exec(line) : null;
    if (th) {
      body.thread = { url: th[1], line: i };
      last = undefined;
      continue;
    }
    if (isFiles) {
      if (body.filesLine === undefined) {
        body.filesLine = i;
      }
      last = undefined;
      if (lab!.rest) {
        for (const f of splitList(lab!.rest)) {
          addFile(f);
        }
        mode = 'summary';
        modeIndent = -1;
      } else {
        mode = 'files';
        modeIndent = bullet ? indent : -1;
      }
      continue;
    }
    if (isLearnings) {
      if (body.learningsLine === undefined) {
        body.learningsLine = i;
        body.learningsStyle = { indent, bullet };
      }
      mode = 'learnings';
      modeIndent = bullet ? indent : -1;
      last = undefined;
      if (lab!.rest) {
        // `- Gotcha: the cache is per request` is one learning, word for word; `Learnings: x` is a
        // label with its first learning on the same line.
        const whole = ONE_LEARNING_LABEL.test(lab!.label);
        push(body.learnings, whole ? (bulletText ?? line.trim()) : lab!.rest, i, whole ? indent : indent + 2);
        last = undefined;
      }
      continue;
    }
    if (bulletText !== undefined) {
      const text = bulletText;
      // After `- **Learnings:**`, bullets at the label's own indentation are learnings too (a flat
      // list, or one more learning after nested ones), up to the next label, separator or heading:
      // the learnings block ends an entry, and a bullet kept as a learning is never lost.
      if (mode === 'learnings' && indent >= modeIndent) {
        push(body.learnings, text, i, indent);
      } else if (mode === 'files' && indent > modeIndent) {
        // One item per line: `path - what changed` (the description may hold commas).
        for (const f of splitList(withoutDescription(text))) {
          addFile(f);
        }
        last = undefined;
      } else {
        mode = 'summary';
        modeIndent = -1;
        push(body.summary, text, i, indent);
      }
      continue;
    }
    // A paragraph line.
    if (mode === 'learnings' && modeIndent < 0 && !headingOf(line.trim())) {
      push(body.learnings, line.trim(), i, indent);
      continue;
    }
    if (mode === 'files' && modeIndent < 0 && !headingOf(line.trim()) && !/\s/.test(line.trim())) {
      addFile(line);
      last = undefined;
      continue;
    }
    mode = 'summary';
    modeIndent = -1;
    push(body.summary, line.trim(), i, indent);
  }
  return { body, contentEnd };
}

export function parseItems(lines: readonly string[], from: number, to: number): { items: ProgressItem[]; contentEnd: number } {
  const items: ProgressItem[] = [];
  let last: ProgressItem | undefined;
  let contentEnd = from;
  let fence = false;
  for (let i = from; i < to; i++) {
    const line = lines[i];
    if (fence || FENCE.test(line)) {
      if (fence && FENCE.test(line)) {
        fence = false;
      } else if (!fence) {
        fence = true;
      }
      contentEnd = i + 1;
      if (last) {
        addMore(last, stripIndent(line, last.indent), i + 1);
      }
      continue;
    }
    if (line.trim() === '') {
      continue;
    }
    if (SEPARATOR.test(line)) {
      last = undefined;
      continue;
    }
    contentEnd = i + 1;
    const indent = indentOf(line);
    if (last && indent > last.indent) {
      addMore(last, stripIndent(line, last.indent), i + 1);
      continue;
    }
    if (headingOf(line)) {
      last = undefined;
      continue;
    }
    const b = BULLET.exec(line);
    last = { text: b ? (b[2] ?? '') : line.trim(), line: i, endLine: i + 1, indent, more: NO_MORE };
    items.push(last);
  }
  return { items, contentEnd };
}
