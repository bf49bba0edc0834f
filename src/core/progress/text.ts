/** Text helpers for progress.txt and other workspace text files: line splitting, line ends, decoding. */

export type Eol = '\n' | '\r\n' | '\r';

/** The lines of a text (without line ends) and the offset where each starts. */
export interface SplitText {
  readonly lines: string[];
  readonly starts: number[];
  /** Whether the text ends with a line end. */
  readonly finalEol: boolean;
}

export function splitLines(text: string): SplitText {
  const lines: string[] = [];
  const starts: number[] = [];
  const n = text.length;
  let start = 0;
  if (text.indexOf('\r') < 0) {
    // Fast path: only \n line ends.
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      lines.push(text.slice(start, nl));
      starts.push(start);
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
  } else {
    let i = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 10 || c === 13) {
        lines.push(text.slice(start, i));
        starts.push(start);
        i += c === 13 && text.charCodeAt(i + 1) === 10 ? 2 : 1;
        start = i;
      } else {
        i++;
      }
    }
  }
  const finalEol = n > 0 && start === n;
  if (!finalEol && n > 0) {
    lines.push(text.slice(start));
    starts.push(start);
  }
  return { lines, starts, finalEol };
}

/** The line end the text uses most (first seen wins ties); `\n` when it has none. */
export function detectEol(text: string): Eol {
  const crlf = text.indexOf('\r\n');
  if (crlf >= 0) {
    return '\r\n';
  }
  const lf = text.indexOf('\n');
  const cr = text.indexOf('\r');
  if (cr >= 0 && (lf < 0 || cr < lf)) {
    return '\r';
  }
  return '\n';
}

/** Decodes file bytes as UTF-8 (BOM kept, so writing back changes nothing). */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
}

/** True when the text looks like a binary file (NUL characters, or mostly undecodable bytes). */
export function looksBinary(text: string): boolean {
  const sample = text.length > 65536 ? text.slice(0, 65536) : text;
  if (sample.includes('\u0000')) {
    return true;
  }
  let bad = 0;
  for (let i = 0; i < sample.length; i++) {
    if (sample.charCodeAt(i) === 0xfffd) {
      bad++;
    }
  }
  return sample.length > 0 && bad / sample.length > 0.1;
}
