/**
 * The receipt formats, one per agent, each reading whole lines (receipts.ts splits the stream):
 *
 * - Claude Code (`--output-format json` or `stream-json`) and Amp (`--stream-json`, the same
 *   shape): the `result` object. Its `total_cost_usd` is the session's running total, so the last
 *   result counts (never a sum). Tokens are the sum over `modelUsage` (its `usage` covers the main
 *   model only: test/fixtures/agent-output/claude/json-result-two-models.json), else `usage`; the
 *   model is the stream's `init` model, else the `modelUsage` entry that cost the most.
 * - Codex (`codex exec --json`): `turn.completed` events; their `usage` is the thread's running
 *   total (the last counts), `input_tokens` includes the cached ones (kept so) and
 *   `cached_input_tokens` is `cacheRead`; Codex reports no cache writes (0).
 * - Copilot CLI: its closing usage summary; the token counts there are rounded ("919.2k") and the
 *   cost is in premium requests, so only the model is recorded (when one model ran).
 * - `ralph-receipt: {json}` on a line of its own, with runs.jsonl's keys: any command may print it.
 *
 * A line that is a receipt but cannot be read (cut off, malformed, a negative or fractional count)
 * makes the receipt `unreadable` until a later, readable one replaces it.
 */
import * as z from 'zod';
import type { RunTokens } from '../runs/runs';

export type Receipt =
  | {
      readonly receipt: 'parsed';
      readonly cost?: number;
      readonly tokens?: RunTokens;
      readonly model?: string;
      readonly turns?: number;
      /** Codex: `tokens.input` already counts the cached tokens (not written to runs.jsonl; the token cap needs it). */
      readonly cachedInInput?: true;
    }
  | { readonly receipt: 'none' }
  | { readonly receipt: 'unreadable' };

/** What a format reads a receipt from: whole lines of the output. */
export interface LineFormat {
  /** One line, escape sequences and line breaks removed. */
  line(text: string): void;
  /** A line longer than MAX_RECEIPT_LINE: only its first characters (escapes removed). */
  skipped(head: string): void;
  /** The receipt the format read; undefined when it saw nothing of its own. */
  result(): Receipt | undefined;
}

/** A parsed receipt when any field is known, else none (a receipt with nothing in it says nothing). */
export function receiptOf(fields: { cost?: number; tokens?: RunTokens; model?: string; turns?: number }): Receipt {
  const known = {
    ...(fields.cost !== undefined ? { cost: fields.cost } : {}),
    ...(fields.tokens !== undefined ? { tokens: fields.tokens } : {}),
    ...(fields.model !== undefined ? { model: fields.model } : {}),
    ...(fields.turns !== undefined ? { turns: fields.turns } : {}),
  };
  return Object.keys(known).length > 0 ? { receipt: 'parsed', ...known } : { receipt: 'none' };
}


const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const dollars = z.number().nonnegative().max(1e9);
/** A model's name: printable, one line, bounded. */
const modelName = z.string().min(1).max(200).regex(/^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]+$/);

const UNREADABLE: Receipt = { receipt: 'unreadable' };

const TYPE_AT_HEAD = new Map<string, RegExp>();

/** Whether the start of a line is a JSON object whose "type" is this one (cheap: no parse; on every line). */
function typeAtHead(head: string, type: string): boolean {
  if (head.charCodeAt(0) !== 0x7b /* { */) {
    return false;
  }
  let re = TYPE_AT_HEAD.get(type);
  if (!re) {
    re = new RegExp(`"type"\\s*:\\s*"${type.replace('.', '\\.')}"`);
    TYPE_AT_HEAD.set(type, re);
  }
  return re.test(head.length > 200 ? head.slice(0, 200) : head);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const claudeUsage = z.object({
  input_tokens: count,
  output_tokens: count,
  cache_read_input_tokens: count,
  cache_creation_input_tokens: count,
});
const claudeModelUsage = z.object({
  inputTokens: count.optional(),
  outputTokens: count.optional(),
  cacheReadInputTokens: count.optional(),
  cacheCreationInputTokens: count.optional(),
  costUSD: dollars.optional(),
});
const claudeResult = z.object({
  type: z.literal('result'),
  total_cost_usd: dollars.optional(),
  num_turns: count.optional(),
  // An error result may carry `usage: {}`: tokens unknown then, not zero.
  usage: z.union([claudeUsage, z.object({}).strict(), z.object({ input_tokens: count.optional(), output_tokens: count.optional() })]).optional(),
  modelUsage: z.record(z.string(), claudeModelUsage).optional(),
});

function claudeTokens(r: z.infer<typeof claudeResult>): RunTokens | undefined {
  const models = Object.values(r.modelUsage ?? {});
  const complete = models.length > 0 && models.every((m) => m.inputTokens !== undefined && m.outputTokens !== undefined && m.cacheReadInputTokens !== undefined && m.cacheCreationInputTokens !== undefined);
  if (complete) {
    return models.reduce<RunTokens>(
      (t, m) => ({ input: t.input + (m.inputTokens ?? 0), output: t.output + (m.outputTokens ?? 0), cacheRead: t.cacheRead + (m.cacheReadInputTokens ?? 0), cacheWrite: t.cacheWrite + (m.cacheCreationInputTokens ?? 0) }),
      { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    );
  }
  const u = claudeUsage.safeParse(r.usage);
  return u.success ? { input: u.data.input_tokens, output: u.data.output_tokens, cacheRead: u.data.cache_read_input_tokens, cacheWrite: u.data.cache_creation_input_tokens } : undefined;
}

/** The model that cost the most (ties: the first named). */
function costliestModel(usage: Record<string, { costUSD?: number }> | undefined): string | undefined {
  let best: { name: string; cost: number } | undefined;
  for (const [name, m] of Object.entries(usage ?? {})) {
    if (modelName.safeParse(name).success && (!best || (m.costUSD ?? 0) > best.cost)) {
      best = { name, cost: m.costUSD ?? 0 };
    }
  }
  return best?.name;
}

const claudeInit = z.object({ subtype: z.literal('init'), model: modelName });

/** Claude Code's result object (json and stream-json); Amp's stream-json has the same shape. */
export function claudeFormat(): LineFormat {
  let initModel: string | undefined;
  let last: Receipt | undefined;
  return {
    line(text) {
      if (typeAtHead(text, 'system')) {
        const init = claudeInit.safeParse(parseJson(text));
        initModel = init.success ? init.data.model : initModel;
        return;
      }
      if (!typeAtHead(text, 'result')) {
        return;
      }
      const r = claudeResult.safeParse(parseJson(text));
      last = r.success
        ? receiptOf({ cost: r.data.total_cost_usd, tokens: claudeTokens(r.data), model: initModel ?? costliestModel(r.data.modelUsage), turns: r.data.num_turns })
        : UNREADABLE;
    },
    skipped(head) {
      if (typeAtHead(head, 'result')) {
        last = UNREADABLE;
      }
    },
    result: () => last,
  };
}

const codexTurn = z.object({
  type: z.literal('turn.completed'),
  usage: z.object({ input_tokens: count, cached_input_tokens: count, output_tokens: count }),
});

/** Codex's `turn.completed` events. */
export function codexFormat(): LineFormat {
  let last: Receipt | undefined;
  let turns = 0;
  return {
    line(text) {
      if (!typeAtHead(text, 'turn.completed')) {
        return;
      }
      turns += 1;
      const t = codexTurn.safeParse(parseJson(text));
      last = t.success
        ? { receipt: 'parsed', tokens: { input: t.data.usage.input_tokens, output: t.data.usage.output_tokens, cacheRead: t.data.usage.cached_input_tokens, cacheWrite: 0 }, cachedInInput: true }
        : UNREADABLE;
    },
    skipped(head) {
      if (typeAtHead(head, 'turn.completed')) {
        last = UNREADABLE;
      }
    },
    result: () => (last?.receipt === 'parsed' ? { ...last, turns } : last),
  };
}

/** Copilot CLI's closing summary: "Total usage est: …", then the models ("Usage by model:" or "Breakdown by AI model:"). */
export function copilotFormat(): LineFormat {
  let seen = false;
  let inModels = false;
  const models: string[] = [];
  return {
    line(text) {
      if (/^Total usage est:/.test(text)) {
        seen = true;
        inModels = false;
        models.length = 0;
        return;
      }
      if (!seen) {
        return;
      }
      if (/^(?:Usage by model|Breakdown by AI model):$/.test(text)) {
        inModels = true;
        return;
      }
      // visibleLine trimmed the indentation: a model line is "<name>  <n>k in(put), …".
      const m = inModels ? /^(\S+) {2,}[\d.]+[kmb]? in(?:put)?,/i.exec(text) : null;
      if (m && modelName.safeParse(m[1]).success) {
        models.push(m[1]);
      } else {
        inModels = false;
      }
    },
    skipped: () => undefined,
    result: () => (seen ? receiptOf({ model: models.length === 1 ? models[0] : undefined }) : undefined),
  };
}

const customReceipt = z.object({
  cost: dollars.optional(),
  tokens: z.object({ input: count, output: count, cacheRead: count, cacheWrite: count }).optional(),
  model: modelName.optional(),
  turns: count.optional(),
  /** `input` already counts the cached tokens (as Codex reports it): the token cap does not add them again. */
  cachedInInput: z.literal(true).optional(),
});

export const RECEIPT_LINE_PREFIX = 'ralph-receipt:';

/** `ralph-receipt: {"cost": …, "tokens": {…}, "model": "…", "turns": …}` on a line of its own; the last one counts. */
export function customLineFormat(): LineFormat {
  let last: Receipt | undefined;
  return {
    line(text) {
      if (!text.startsWith(RECEIPT_LINE_PREFIX)) {
        return;
      }
      const r = customReceipt.safeParse(parseJson(text.slice(RECEIPT_LINE_PREFIX.length)));
      const read = r.success ? receiptOf(r.data) : UNREADABLE;
      last = read.receipt === 'parsed' && r.data?.cachedInInput && read.tokens ? { ...read, cachedInInput: true } : read;
    },
    skipped(head) {
      if (head.startsWith(RECEIPT_LINE_PREFIX)) {
        last = UNREADABLE;
      }
    },
    result: () => last,
  };
}
