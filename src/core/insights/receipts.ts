/**
 * Receipts: what an agent says a run cost (dollars, tokens, model, turns), read from its output
 * as it streams. One reader per run is fed the output chunk by chunk (the engine's executors call
 * it from `onOutput`); it keeps only the line being assembled (at most MAX_RECEIPT_LINE characters:
 * a longer line is skipped, its first characters kept to tell whether it was a receipt) and what
 * each format has read so far, so a 50 MB transcript costs no more memory than a short one.
 *
 * The formats (one per agent preset, in receiptFormats.ts) read whole lines; the custom
 * `ralph-receipt: {json}` line is read for every agent and, when printed, is the receipt.
 * A receipt that is there but cannot be read (cut off, malformed, a number of the wrong kind)
 * is `unreadable`: never a crash and never a wrong number.
 */
import { stripAnsi } from '../output';
import type { RunRecord } from '../runs/runs';
import { type RunSpend, tokenTotal } from './budget';
import { claudeFormat, codexFormat, copilotFormat, customLineFormat, type LineFormat, type Receipt, receiptOf } from './receiptFormats';

export { type LineFormat, type Receipt, receiptOf } from './receiptFormats';

/** A line longer than this (in UTF-16 units) is not kept: a receipt line is far shorter. */
export const MAX_RECEIPT_LINE = 1024 * 1024;
/** How much of a skipped line is kept, to tell whether it was a receipt. */
const SKIPPED_HEAD = 256;

/** Reads one run's receipt from its output, fed in chunks of any size. */
export class ReceiptReader {
  private partial = '';
  /** Characters of the current line dropped because it grew past the bound. */
  private overflow = false;
  private readonly all: readonly LineFormat[];

  constructor(
    private readonly formats: readonly LineFormat[],
    private readonly custom: LineFormat = customLineFormat(),
  ) {
    this.all = [...formats, custom];
  }

  push(chunk: string): void {
    let from = 0;
    for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', from)) {
      this.take(chunk.slice(from, nl));
      this.finishLine();
      from = nl + 1;
    }
    this.take(chunk.slice(from));
  }

  /** The receipt, once the output has ended (a last line without a line break counts too). */
  end(): Receipt {
    if (this.partial !== '' || this.overflow) {
      this.finishLine();
    }
    const custom = this.custom.result();
    if (custom) {
      return custom;
    }
    for (const f of this.formats) {
      const r = f.result();
      if (r) {
        return r;
      }
    }
    return { receipt: 'none' };
  }

  private take(text: string): void {
    if (this.overflow) {
      return;
    }
    if (this.partial.length + text.length > MAX_RECEIPT_LINE) {
      this.partial = (this.partial + text.slice(0, SKIPPED_HEAD)).slice(0, SKIPPED_HEAD);
      this.overflow = true;
      return;
    }
    this.partial += text;
  }

  private finishLine(): void {
    const text = visibleLine(this.partial);
    const skipped = this.overflow;
    this.partial = '';
    this.overflow = false;
    for (const f of this.all) {
      if (skipped) {
        f.skipped(text);
      } else {
        f.line(text);
      }
    }
  }
}

/** A line as a terminal shows it: escapes removed, and after a carriage return only what overwrote it. */
export function visibleLine(raw: string): string {
  // Most lines (an agent's JSON) hold neither: skip the regular expressions then (every line passes here).
  const plain = raw.includes('\x1b') || raw.includes('\x9b') ? stripAnsi(raw) : raw;
  const cr = plain.includes('\r') ? plain.replace(/\r+$/, '').lastIndexOf('\r') : -1;
  return (cr === -1 ? plain.replace(/\r+$/, '') : plain.replace(/\r+$/, '').slice(cr + 1)).trim();
}

/**
 * The reader for an agent: the preset's format (Amp prints Claude's stream-json shape), or, for
 * the workspace's ralph.sh and a command of the user's own, every format. runs.jsonl's `agent`
 * names the preset, or the program of a custom command (`claude`, `codex`), which picks the same.
 */
export function receiptReaderFor(agent: string, options: { readonly customLines?: boolean } = {}): ReceiptReader {
  // customLines false: only the agent's own stream counts (render-stream, whose input is the agent's
  // output: a `ralph-receipt:` line there is the agent's text, not a receipt).
  const custom = options.customLines === false ? NO_LINES : undefined;
  switch (agent) {
    case 'claude':
    case 'amp':
      return new ReceiptReader([claudeFormat()], custom);
    case 'codex':
      return new ReceiptReader([codexFormat()], custom);
    case 'copilot':
      return new ReceiptReader([copilotFormat()], custom);
    default:
      return new ReceiptReader([claudeFormat(), codexFormat(), copilotFormat()], custom);
  }
}

/** A line format that reads nothing. */
const NO_LINES: LineFormat = { line: () => undefined, skipped: () => undefined, result: () => undefined };

/** A receipt's fields of a runs.jsonl line (what the agent reported, nothing else). */
export function receiptFields(r: Receipt | undefined): Pick<RunRecord, 'receipt' | 'cost' | 'tokens' | 'model' | 'turns'> {
  if (!r) {
    return {};
  }
  if (r.receipt !== 'parsed') {
    return { receipt: r.receipt };
  }
  return receiptOf({ cost: r.cost, tokens: r.tokens, model: r.model, turns: r.turns }) as Pick<RunRecord, 'receipt' | 'cost' | 'tokens' | 'model' | 'turns'>;
}

/** What a run spent, for the budget caps (undefined: nothing is known). */
export function spendOf(r: Receipt | undefined): RunSpend | undefined {
  if (r?.receipt !== 'parsed') {
    return undefined;
  }
  return { cost: r.cost, tokens: r.tokens ? tokenTotal(r.tokens, r.cachedInInput === true) : undefined };
}

/** The receipt of a whole output at once (tests, and a log read after the run). */
export function readReceipt(agent: string, output: string): Receipt {
  const r = receiptReaderFor(agent);
  r.push(output);
  return r.end();
}
