/**
 * Terminal text both ways. In: spotting `<promise>COMPLETE</promise>` in an agent's terminal
 * output (data arrives in arbitrary chunks, coloured with ANSI escapes, sprinkled with
 * shell-integration OSC sequences, and on Windows ConPTY re-wrapped with CR/LF; the detector
 * ignores all of that). Out: text from prd.json, progress.txt or GitHub shown where a person reads
 * it, with the characters a terminal would obey (or that reorder what is shown) made visible.
 */

/**
 * C0 controls and DEL, C1 controls, and the bidirectional formatting characters (LRM, RLM, ALM,
 * the embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069): a terminal acts on the
 * first two (ESC [2J clears the screen, U+009B starts a sequence), the last reorders the line
 * around it ("Trojan Source"). Line breaks are handled by the callers' choice below.
 */
const INVISIBLE = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;
const INVISIBLE_OR_BREAK = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function visibleEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * Human-readable output (the CLI's text, a copied text or Mermaid graph): every control and bidi
 * character shown as `\u001b`, `\u202e`, … Line breaks (`\n`, `\r\n`) stay: whole outputs are
 * lines. Machine-readable output (`--json`) does not go through this: it keeps the data.
 */
export function visibleControls(text: string): string {
  return text.replace(INVISIBLE, visibleEscape);
}

/** One field on one line (an id, a title, a URL): like visibleControls, line breaks included. */
export function oneLine(text: string): string {
  return text.replace(INVISIBLE_OR_BREAK, visibleEscape);
}

export const COMPLETE_SIGNAL = '<promise>COMPLETE</promise>';

// CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), DCS/SOS/PM/APC (ESC P|X|^|_ … ESC \), charset designations, other two-byte escapes, 8-bit CSI.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[()*+][0-~]|\x1b[ -/]*[0-~]|\x9b[0-?]*[ -/]*[@-~]/g;
// An escape sequence cut off at the end of a chunk.
const UNFINISHED = /(?:\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?|[PX^_][^\x1b]*\x1b?|[()*+]|[ -/]*)?|\x9b[0-?]*[ -/]*)$/;
const MAX_CARRY = 8192;

/** Terminal output as plain text: escape sequences removed, line breaks kept. */
export function stripAnsi(text: string): string {
  return text.replace(ESCAPES, '');
}

/** True when the whole text contains the completion signal (escapes and line breaks ignored). */
export function detectCompleteSignal(text: string): boolean {
  const d = new CompleteSignalDetector();
  d.push(text);
  return d.seen;
}

/** Feeds chunks of output; `seen` latches once the signal has appeared, even split across chunks. */
export class CompleteSignalDetector {
  private carry = '';
  private tail = '';
  private found = false;

  get seen(): boolean {
    return this.found;
  }

  /** Adds a chunk; returns true when the signal has been seen (in this chunk or before). */
  push(chunk: string): boolean {
    if (this.found) {
      return true;
    }
    let text = this.carry + chunk;
    const cut = UNFINISHED.exec(text);
    this.carry = '';
    if (cut && cut[0].length > 0 && cut[0].length <= MAX_CARRY) {
      this.carry = cut[0];
      text = text.slice(0, cut.index);
    }
    const plain = stripAnsi(text).replace(/[\r\n]/g, '');
    const window = this.tail + plain;
    if (window.includes(COMPLETE_SIGNAL)) {
      this.found = true;
      this.tail = '';
      return true;
    }
    this.tail = window.slice(-(COMPLETE_SIGNAL.length - 1));
    return false;
  }

  reset(): void {
    this.carry = '';
    this.tail = '';
    this.found = false;
  }
}
