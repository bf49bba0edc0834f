/**
 * Reading the text of a GitHub comment as a person sees it, in one linear pass each (issue 16):
 * a comment is text from anyone, up to 65,536 characters, read on the extension host's thread, so
 * nothing here may take more than time proportional to its length (no regular expression that
 * can backtrack over it: lines are cut with indexOf, URLs and verdicts are read by hand).
 * What a reader does not see never picks a file: text inside `<!-- … -->`, an HTML tag's
 * attributes, a link reference definition, and a link's target when its text shows another URL.
 * Pure: no I/O, no vscode.
 */

export type Verdict = 'APPROVED' | 'NEEDS_ITERATION';

/**
 * Characters looked at by the functions of this module (their loops and the native searches they
 * make), so a test can check the work is linear in the input without timing it.
 */
export const scanWork = { chars: 0 };

/** The text without its HTML comments (an unclosed `<!--` hides everything after it, as it does on GitHub). */
export function withoutHtmlComments(text: string): string {
  scanWork.chars += text.length;
  if (!text.includes('<!--')) {
    return text;
  }
  const parts: string[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf('<!--', from);
    if (open < 0) {
      parts.push(text.slice(from));
      break;
    }
    parts.push(text.slice(from, open));
    const close = text.indexOf('-->', open + 4);
    if (close < 0) {
      break;
    }
    from = close + 3;
  }
  return parts.join('');
}

/** The lines of a text (`\n`, `\r\n` or `\r`): native split, linear. */
export function linesOf(text: string): string[] {
  scanWork.chars += 2 * text.length;
  return (text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text).split('\n');
}

/**
 * The lines of a comment as a reader sees them (HTML comments, tags and link reference
 * definitions removed), at most `maxLines`: one pass with indexOf, no copy of the whole text.
 * A comment's text from `<!--` to `-->` is cut out, joining the text around it into one line;
 * an unclosed `<!--` hides the rest.
 */
export function visibleLines(body: string, maxLines = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  const add = (x: string): void => {
    out.push(x.includes('<') || x.includes('[') ? visibleLine(x) : x);
  };
  const push = (line: string): void => {
    if (line.includes('\r')) {
      linesOf(line).forEach(add);
    } else {
      add(line);
    }
  };
  scanWork.chars += 2 * body.length;
  let from = 0;
  let pending = '';
  let comment = body.indexOf('<!--');
  while (from <= body.length && out.length < maxLines) {
    let nl = body.indexOf('\n', from);
    if (nl < 0) {
      nl = body.length;
    }
    if (comment >= 0 && comment < from) {
      comment = body.indexOf('<!--', from);
    }
    if (comment >= 0 && comment < nl) {
      pending += body.slice(from, comment);
      const close = body.indexOf('-->', comment + 4);
      if (close < 0) {
        from = body.length + 1;
        break;
      }
      from = close + 3;
      continue;
    }
    push(pending + body.slice(from, nl));
    pending = '';
    from = nl + 1;
  }
  if (pending !== '') {
    push(pending);
  }
  return out.length > maxLines ? out.slice(0, maxLines) : out;
}

const SPACE_CODES = new Set([0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff]);

function isSpace(c: number): boolean {
  return c <= 32 || (c > 126 && (SPACE_CODES.has(c) || (c >= 0x2000 && c <= 0x200a)));
}

/** Characters that end a URL in comment text: white space, `<>()[]"'` and the backtick. */
const URL_STOP_ASCII = new Uint8Array(128);
for (const ch of '<>()[]"\'`') {
  URL_STOP_ASCII[ch.charCodeAt(0)] = 1;
}

function endsUrl(c: number): boolean {
  return c < 128 ? c <= 32 || URL_STOP_ASCII[c] === 1 : isSpace(c);
}
const TRAILING = new Set([...'.,;:!?*_'].map((ch) => ch.charCodeAt(0)));

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/** Whether `word` (lower-case ASCII letters, `_` or space) is at `i` of `text`, in any case. */
function wordAt(text: string, i: number, word: string): boolean {
  if (i < 0 || i + word.length > text.length) {
    return false;
  }
  for (let k = 0; k < word.length; k++) {
    const w = word.charCodeAt(k);
    const c = text.charCodeAt(i + k);
    if (c !== w && !(w >= 97 && w <= 122 && c === w - 32)) {
      return false;
    }
  }
  return true;
}

/** Length of `http://` or `https://` (any case) at `i`, else 0. */
function schemeAt(line: string, i: number): number {
  return wordAt(line, i, 'http://') ? 7 : wordAt(line, i, 'https://') ? 8 : 0;
}

/** A URL in a line: where it starts, and the link text when it is the target of `[text](url)`. */
export interface LineUrl {
  readonly url: string;
  readonly start: number;
  /** Set when the URL is a markdown link's target: the text a reader sees instead. */
  readonly linkText?: string;
}

/**
 * Every http(s) URL in one line, left to right, trailing punctuation removed (`.`, `,`, `;`,
 * `:`, `!`, `?`, `*`, `_`). A line that is nothing but a URL is taken whole (a self-heal or
 * link comment: a file name may hold `'`, `(` or `!`). Each character is visited a bounded
 * number of times: candidates are found with indexOf, the `[` of a link by searching back only
 * as far as the previous URL.
 */
export function urlsInLine(line: string): LineUrl[] {
  // includes, trim, and the indexOf searches below (each starts where the one before ended)
  scanWork.chars += 3 * line.length;
  if (!line.includes('://')) {
    return [];
  }
  const t = line.trim();
  if (schemeAt(t, 0) > 0 && isWholeUrl(t)) {
    const start = line.indexOf(t);
    return [{ url: t, start }];
  }
  const out: LineUrl[] = [];
  let open = -1;
  let searched = 0;
  // Candidates are found by their `://` (a native search); the scheme before it is checked.
  for (let k = line.indexOf('://'); k >= 0; k = line.indexOf('://', k + 3)) {
    const i = schemeAt(line, k - 5) === 8 ? k - 5 : schemeAt(line, k - 4) === 7 ? k - 4 : -1;
    scanWork.chars += 8;
    if (i < 0) {
      continue;
    }
    const scheme = k + 3 - i;
    let end = k + 3;
    while (end < line.length && !endsUrl(line.charCodeAt(end))) {
      end++;
    }
    let last = end;
    while (last > i + scheme && TRAILING.has(line.charCodeAt(last - 1))) {
      last--;
    }
    scanWork.chars += end - i + (end - last) + (i - searched);
    // The last `[` before this URL: searched only in the stretch not searched yet.
    const seen = line.slice(searched, i).lastIndexOf('[');
    if (seen >= 0) {
      open = searched + seen;
    }
    searched = end;
    if (last > i + scheme) {
      // `](url` or `](<url`: the target of a link whose text starts at the last `[`.
      const close = line.startsWith('](', i - 2) ? i - 2 : line.startsWith('](<', i - 3) ? i - 3 : -1;
      const linkText = close >= 0 && open >= 0 && open < close ? line.slice(open + 1, close) : undefined;
      out.push({ url: line.slice(i, last), start: i, linkText });
      if (linkText !== undefined) {
        // A `[` opens one link: the next target needs a `[` of its own (else texts would overlap).
        open = -1;
      }
    }
    k = end - 3;
  }
  return out;
}

/** No white space and none of `<>[]"` or the backtick (which a percent-encoded URL never holds). */
function isWholeUrl(s: string): boolean {
  scanWork.chars += s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isSpace(c) || WHOLE_URL_STOP.has(c)) {
      return false;
    }
  }
  return true;
}

const WHOLE_URL_STOP = new Set([...'<>[]"`'].map((ch) => ch.charCodeAt(0)));

/** A line that only defines a link reference (`[name]: url`): GitHub does not show it. */
function isLinkDefinition(line: string): boolean {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 32) {
    i++;
  }
  if (line.charCodeAt(i) !== 91 /* [ */) {
    return false;
  }
  scanWork.chars += line.length;
  const close = line.indexOf(']', i);
  return close > 0 && line.charCodeAt(close + 1) === 58; /* : */
}

/**
 * A line as a reader sees it: HTML tags (with their attributes) removed, autolinks
 * (`<https://…>`) kept, a link reference definition is empty.
 */
export function visibleLine(line: string): string {
  if (isLinkDefinition(line)) {
    return '';
  }
  scanWork.chars += 2 * line.length;
  if (!line.includes('<')) {
    return line;
  }
  const parts: string[] = [];
  let from = 0;
  let gt = -2;
  for (let i = line.indexOf('<'); i >= 0; i = line.indexOf('<', i + 1)) {
    if (i < from) {
      continue;
    }
    const next = line.charCodeAt(i + 1);
    const tagLike = (next >= 65 && next <= 90) || (next >= 97 && next <= 122) || next === 47; /* letter or / */
    if (!tagLike || schemeAt(line, i + 1) > 0) {
      continue;
    }
    if (gt !== -1 && gt < i) {
      gt = line.indexOf('>', i);
    }
    if (gt < 0) {
      break;
    }
    parts.push(line.slice(from, i));
    from = gt + 1;
  }
  parts.push(line.slice(from));
  return parts.join('');
}

/** Marks around a verdict (`**`, `> `, `: `) are short: a longer run is no verdict line. */
const MAX_VERDICT_MARKS = 32;

/**
 * `VERDICT: APPROVED`, `**Verdict: NEEDS_ITERATION**`, `verdict: needs iteration`: at most
 * MAX_VERDICT_MARKS characters of marks before and after the word, so a line costs O(1) here.
 */
export function verdictOf(line: string): Verdict | undefined {
  const t = line;
  let i = 0;
  while (i < t.length && i < MAX_VERDICT_MARKS && !isWordChar(t.charCodeAt(i))) {
    i++;
  }
  if (!wordAt(t, i, 'verdict')) {
    return undefined;
  }
  i += 7;
  const limit = i + MAX_VERDICT_MARKS;
  while (i < t.length && i < limit && !isWordChar(t.charCodeAt(i))) {
    i++;
  }
  const endsAt = (n: number): boolean => i + n >= t.length || !isWordChar(t.charCodeAt(i + n));
  if (wordAt(t, i, 'approved') && endsAt(8)) {
    return 'APPROVED';
  }
  if ((wordAt(t, i, 'needs_iteration') || wordAt(t, i, 'needs iteration')) && endsAt(15)) {
    return 'NEEDS_ITERATION';
  }
  return undefined;
}

/** A line's text without leading `>` quote marks; whether it had any. */
export function unquoted(line: string): { text: string; quoted: boolean } {
  scanWork.chars += 3 * line.length;
  const t = line.trim();
  let i = 0;
  while (t.charCodeAt(i) === 62 /* > */) {
    i++;
    while (i < t.length && isSpace(t.charCodeAt(i))) {
      i++;
    }
  }
  return { text: t.slice(i).trimEnd(), quoted: i > 0 };
}
