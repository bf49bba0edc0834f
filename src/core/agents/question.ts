/**
 * Whether an agent that ended without finishing its story was asking the user something (issue 19:
 * "an agent that ... asks a question" becomes a Needs You item). Only the agent's last words count:
 * the last assistant text of a structured output (Claude Code's `result` or last `assistant` event
 * of `--output-format json` / `stream-json`, Codex's last `agent_message` of `exec --json`), else
 * the last line of plain output (Amp, Copilot CLI, a ralph.sh). It is a question when that line
 * ends with "?" and is put to the user (it names "you" or "I": "Should I…", "Do you want…"), or
 * when the agent says it is waiting for the user's input. Conservative on purpose: a test title or
 * a line of code ending in "?" is not a question, nor a question the agent went on to answer.
 * Pure: the caller keeps the end of the output (QUESTION_TAIL_CHARS).
 */
import { stripAnsi } from '../output';
import { clip } from '../text';

/** How much of the end of an agent's output the caller keeps for the rule (a long result line fits). */
export const QUESTION_TAIL_CHARS = 16_384;

/** The question is cut to this many characters (whole words, an ellipsis). */
export const MAX_QUESTION_CHARS = 200;

const WAITING = /^(?:i am |i'm )?(?:still )?(?:waiting|awaiting) (?:for )?(?:your )?(?:input|reply|answer|response|confirmation|decision)\b/i;
const TO_THE_USER = /\b(?:you|your)\b|\bI\b|\b(?:me|we)\b/i;
/** Lines of a test report or of code, which may end in "?" without asking anything. */
const NOT_PROSE = /^(?:[✓✔✗✘×√]|ok\b|not ok\b|PASS\b|FAIL\b)|[;{}]|\/\/|=>|\?\./;

/** The question the agent's output ends with, as one line of text (bounded), or undefined. */
export function agentQuestion(output: string): string | undefined {
  const text = lastWords(output);
  if (text === undefined) {
    return undefined;
  }
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  const last = lines[lines.length - 1];
  if (last === undefined) {
    return undefined;
  }
  if (WAITING.test(last)) {
    const before = lines[lines.length - 2];
    return bounded(before !== undefined ? `${before} ${last}` : last);
  }
  const bare = last.replace(/[*_`"')\]\s]+$/, '');
  return bare.endsWith('?') && TO_THE_USER.test(last) && !NOT_PROSE.test(last) ? bounded(last) : undefined;
}

/** The agent's last text: from its structured events when the output is JSON lines, else the output itself. */
function lastWords(output: string): string | undefined {
  const lines = stripAnsi(output).split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length === 0 || !lines[lines.length - 1].trim().startsWith('{')) {
    return lines.join('\n');
  }
  for (let i = lines.length - 1; i >= 0; i--) {
    const event = parseObject(lines[i]);
    if (event === undefined) {
      return undefined; // the structured output was cut or mixed with other text: no guess
    }
    const text = assistantText(event);
    if (text !== undefined) {
      return text;
    }
  }
  return undefined;
}

function parseObject(line: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The assistant's text in one event of Claude Code's or Codex's JSON output; undefined for other events. */
function assistantText(e: Record<string, unknown>): string | undefined {
  if (e.type === 'result' && typeof e.result === 'string') {
    return e.result;
  }
  if (e.type === 'assistant') {
    const content = (e.message as { content?: unknown } | undefined)?.content;
    const texts = Array.isArray(content) ? content.filter((c): c is { type: 'text'; text: string } => c?.type === 'text' && typeof c.text === 'string').map((c) => c.text) : [];
    return texts.length > 0 ? texts.join('\n') : undefined;
  }
  const item = (e.type === 'item.completed' ? e.item : undefined) as { type?: unknown; text?: unknown } | undefined;
  if (item?.type === 'agent_message' && typeof item.text === 'string') {
    return item.text;
  }
  const msg = e.msg as { type?: unknown; message?: unknown } | undefined; // codex before 0.44
  return msg?.type === 'agent_message' && typeof msg.message === 'string' ? msg.message : undefined;
}

/** One line of text (controls as spaces), at most MAX_QUESTION_CHARS, cut at a word. */
function bounded(text: string): string {
  return clip(text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim(), MAX_QUESTION_CHARS);
}
