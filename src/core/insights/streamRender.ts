/**
 * A readable rendering of an agent's JSON stream for the person watching (the CLI's
 * `render-stream` filter): Claude Code's and Amp's stream-json, Codex's `exec --json`. Assistant
 * text as text, each tool call on one line, the final result on one line with what it cost; any
 * line that is not such JSON passes through. At the end it prints the run's receipt as a
 * `ralph-receipt:` line, read by the same reader (receipts.ts) from the raw stream, so whoever
 * reads the rendered output (a terminal) still gets the receipt.
 *
 * Text from the stream is the agent's (and, through it, a workspace file's or a web page's): the
 * CLI prints it with control characters made visible, never obeyed (output.ts).
 */
import { oneLine, visibleControls } from '../output';
import { formatDollars } from './budget';
import { MAX_RECEIPT_LINE, type ReceiptReader, receiptFields, receiptReaderFor, visibleLine } from './receipts';
import { RECEIPT_LINE_PREFIX } from './receiptFormats';

type Json = Record<string, unknown>;
/** What the stream said so far: whether its result (or turn) ended it, and whether as a failure. */
interface RenderState {
  failed: boolean;
  ended: boolean;
  /** The last error message shown (Codex says it twice: as `error` and in `turn.failed`). */
  lastError?: string;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** One line of at most `max` characters, control characters shown as escapes. */
function short(text: string, max = 120): string {
  const line = oneLine(text.replace(/\s+/g, ' ').trim());
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** What a tool call is about, in a few words: its file, command, pattern or URL. */
function toolSubject(input: unknown): string {
  if (!isObject(input)) {
    return '';
  }
  for (const key of ['file_path', 'path', 'command', 'pattern', 'url', 'query', 'description', 'prompt']) {
    const v = str(input[key]);
    if (v) {
      return ` ${short(v, 100)}`;
    }
  }
  return '';
}

/** The agent's own text, line by line, control characters shown as escapes. */
function textLines(text: string): string[] {
  return visibleControls(text).split(/\r?\n/);
}

function tokensText(u: Json | undefined): string {
  if (!u) {
    return '';
  }
  const parts = [
    ['in', num(u.input_tokens)],
    ['out', num(u.output_tokens)],
    ['cache read', num(u.cache_read_input_tokens) ?? num(u.cached_input_tokens)],
    ['cache write', num(u.cache_creation_input_tokens)],
  ].filter((p): p is [string, number] => p[1] !== undefined);
  return parts.length > 0 ? ` · tokens ${parts.map(([k, n]) => `${n.toLocaleString('en-US')} ${k}`).join(', ')}` : '';
}

/** Claude Code / Amp stream-json: the lines worth showing of one event. */
function claudeEvent(e: Json, state: RenderState): string[] | undefined {
  switch (e.type) {
    case 'system':
      return e.subtype === 'init' ? [`● ${short(str(e.model) ?? 'agent', 60)} session started`] : [];
    case 'assistant': {
      const content = isObject(e.message) && Array.isArray(e.message.content) ? e.message.content : [];
      return content.filter(isObject).flatMap((block) => {
        if (block.type === 'text' && str(block.text)) {
          return textLines(str(block.text) as string);
        }
        if (block.type === 'tool_use') {
          return [`→ ${short(str(block.name) ?? 'tool', 40)}${toolSubject(block.input)}`];
        }
        return [];
      });
    }
    case 'user': {
      const content = isObject(e.message) && Array.isArray(e.message.content) ? e.message.content : [];
      return content.filter((b) => isObject(b) && b.type === 'tool_result' && b.is_error === true).map((b) => `  ✗ ${short(typeof (b as Json).content === 'string' ? ((b as Json).content as string) : 'the tool failed')}`);
    }
    case 'result': {
      state.ended = true;
      state.failed = e.is_error === true;
      const cost = num(e.total_cost_usd);
      const turns = num(e.num_turns);
      const parts = [
        `■ ${state.failed ? `ended with an error (${short(str(e.subtype) ?? 'error', 40)})` : 'done'}`,
        turns !== undefined ? `${turns} turn${turns === 1 ? '' : 's'}` : '',
        cost !== undefined ? formatDollars(cost) : '',
      ].filter((p) => p !== '');
      // An error result's text is the agent's own message (a usage limit and its reset time, an
      // overload): shown whole, so that the limit detection (limits.ts) reads it in the terminal.
      const said = state.failed ? (str(e.result) ?? str(e.error)) : undefined;
      return [`${parts.join(' · ')}${tokensText(isObject(e.usage) ? e.usage : undefined)}`, ...(said ? textLines(said) : [])];
    }
    case 'rate_limit_event': {
      const info = isObject(e.rate_limit_info) ? e.rate_limit_info : {};
      const resets = num(info.resetsAt);
      return info.status === 'allowed' ? [] : [`! rate limit: ${short(str(info.status) ?? 'limited', 40)}${resets !== undefined ? `, resets ${new Date(resets * 1000).toISOString()}` : ''}`];
    }
    default:
      return undefined;
  }
}

/** Codex exec --json: the lines worth showing of one event. */
function codexEvent(e: Json, state: RenderState): string[] | undefined {
  const item = isObject(e.item) ? e.item : undefined;
  switch (e.type) {
    case 'thread.started':
    case 'turn.started':
    case 'item.started':
    case 'item.updated':
      return [];
    case 'item.completed':
      switch (item?.type) {
        case 'agent_message':
          return textLines(str(item.text) ?? '');
        case 'reasoning':
          return [`… ${short(str(item.text) ?? '')}`];
        case 'command_execution':
          return [`$ ${short(str(item.command) ?? '', 100)}${num(item.exit_code) !== undefined ? ` (exit ${num(item.exit_code)})` : ''}`];
        case 'file_change':
          return (Array.isArray(item.changes) ? item.changes : []).filter(isObject).map((c) => `✎ ${short(str(c.kind) ?? 'change', 10)} ${short(str(c.path) ?? '', 100)}`);
        case 'mcp_tool_call':
          return [`→ ${short(`${str(item.server) ?? ''}.${str(item.tool) ?? ''}`, 60)}`];
        case 'web_search':
          return [`⌕ ${short(str(item.query) ?? '')}`];
        default:
          return [];
      }
    case 'turn.completed':
      state.ended = true;
      state.failed = false;
      return [`■ turn done${tokensText(isObject(e.usage) ? e.usage : undefined)}`];
    case 'turn.failed':
    case 'error': {
      state.failed = true;
      const message = str(e.message) ?? (isObject(e.error) ? str(e.error.message) : undefined) ?? 'failed';
      // Whole (a limit message names its reset time), and once: Codex repeats its error in turn.failed.
      if (message === state.lastError) {
        return [];
      }
      state.lastError = message;
      return textLines(`✗ ${message}`);
    }
    default:
      return undefined;
  }
}

/** Feeds the raw stream in chunks; returns what to print. */
export class StreamRenderer {
  private partial = '';
  private overflow = false;
  private readonly receipt: ReceiptReader;
  private readonly state: RenderState = { failed: false, ended: false };

  constructor(agent: string) {
    this.receipt = receiptReaderFor(agent, { customLines: false });
  }

  /** The exit status of the filter: 0 when the stream ended with a result that was not an error. */
  get exitCode(): number {
    return this.state.ended && !this.state.failed ? 0 : 1;
  }

  push(chunk: string): string {
    this.receipt.push(chunk);
    let out = '';
    let from = 0;
    for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', from)) {
      out += this.take(chunk.slice(from, nl), true);
      from = nl + 1;
    }
    return out + this.take(chunk.slice(from), false);
  }

  /** The rest, and the receipt line when the stream held one. */
  end(): string {
    let out = this.partial !== '' ? this.line(this.partial) : '';
    this.partial = '';
    if (!this.state.ended && !this.state.failed) {
      out += "■ the agent's stream ended without a result (it stopped early or failed: see its messages above)\n";
    }
    const r = this.receipt.end();
    if (r.receipt === 'parsed') {
      const f = receiptFields(r);
      out += `${RECEIPT_LINE_PREFIX} ${JSON.stringify({ cost: f.cost, tokens: f.tokens, model: f.model, turns: f.turns, ...(r.cachedInInput ? { cachedInInput: true } : {}) })}\n`;
    }
    return out;
  }

  private take(text: string, complete: boolean): string {
    if (this.overflow) {
      // A line too long to hold passes through as it comes (it is no event worth rendering).
      this.overflow = !complete;
      return complete ? `${text}\n` : text;
    }
    if (this.partial.length + text.length > MAX_RECEIPT_LINE) {
      const out = this.partial + text + (complete ? '\n' : '');
      this.partial = '';
      this.overflow = !complete;
      return out;
    }
    this.partial += text;
    if (!complete) {
      return '';
    }
    const line = this.partial;
    this.partial = '';
    return this.line(line);
  }

  /**
   * Every line this filter prints, rendered or passed through: one that a receipt reader would take
   * for a `ralph-receipt:` line (after escapes, carriage returns and spaces, as visibleLine reads it)
   * is the agent's text, not this filter's receipt: it is shown marked, never as a receipt. Only
   * end() prints the receipt, from the stream's own result.
   */
  private line(raw: string): string {
    return this.rendered(raw)
      .split('\n')
      .map((l, i, all) => (i < all.length - 1 && visibleLine(l).startsWith(RECEIPT_LINE_PREFIX) ? `› ${visibleControls(l)}` : l))
      .join('\n');
  }

  private rendered(raw: string): string {
    const text = raw.replace(/\r$/, '');
    if (text.trimStart().startsWith('{')) {
      let event: unknown;
      try {
        event = JSON.parse(text);
      } catch {
        event = undefined;
      }
      if (isObject(event)) {
        // An event of a kind not rendered is the agent's bookkeeping, not words for a person.
        const lines = claudeEvent(event, this.state) ?? codexEvent(event, this.state) ?? (typeof event.type === 'string' ? [] : undefined);
        if (lines) {
          return lines.map((l) => `${l}\n`).join('');
        }
      }
    }
    return `${text}\n`;
  }
}
