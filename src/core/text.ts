/** Positions in a text: offsets to 0-based line/character, via a line-start index (binary search). */

export interface Position {
  /** 0-based line. */
  readonly line: number;
  /** 0-based UTF-16 character within the line. */
  readonly character: number;
}

export interface TextRange {
  readonly offset: number;
  readonly length: number;
  readonly start: Position;
  readonly end: Position;
}

export class LineIndex {
  /** Computed on first use: a reader that needs no positions (the CLI's `next`) never pays for it. */
  private lineStarts?: number[];

  constructor(private readonly text: string) {}

  private get starts(): number[] {
    return (this.lineStarts ??= lineStartsOf(this.text));
  }

  get lineCount(): number {
    return this.starts.length;
  }

  positionAt(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.starts[mid] <= o) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return { line: lo, character: o - this.starts[lo] };
  }

  range(offset: number, length: number): TextRange {
    return { offset, length, start: this.positionAt(offset), end: this.positionAt(offset + length) };
  }
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  if (!text.includes('\r')) {
    // LF only (the usual case): let indexOf find the line breaks.
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
      starts.push(i + 1);
    }
    return starts;
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 /* \n */) {
      starts.push(i + 1);
    } else if (c === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) {
        i++;
      }
      starts.push(i + 1);
    }
  }
  return starts;
}

/** Splits `a, b (c, d), e` on top-level commas and semicolons. */
export function splitList(s: string): string[] {
  if (!/[(`[]/.test(s)) {
    return s
      .split(/[,;]/)
      .map((x) => x.trim())
      .filter((x) => x.length > 0);
  }
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  let tick = false;
  for (const ch of s) {
    if (ch === '`') {
      tick = !tick;
    } else if (!tick && (ch === '(' || ch === '[')) {
      depth++;
    } else if (!tick && (ch === ')' || ch === ']') && depth > 0) {
      depth--;
    }
    if (!tick && depth === 0 && (ch === ',' || ch === ';')) {
      out.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  out.push(cur);
  return out.map((x) => x.trim()).filter((x) => x.length > 0);
}

/** `text` in at most `max` characters: cut at a word when one ends in the second half, with an ellipsis. */
export function clip(text: string, max: number): string {
  if (text.length <= max) {
    return text;
  }
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
