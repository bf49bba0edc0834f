/**
 * `ralph-workbench render-stream`: a filter for an agent's JSON output (Claude Code's and Amp's
 * stream-json, Codex's `exec --json`) that prints it readably, ending with the run's
 * `ralph-receipt:` line; see core/insights/streamRender.ts.
 */
import { parseArgs } from 'node:util';
import { errorMessage } from '../../core/errorMessage';
import { StreamRenderer } from '../../core/insights/streamRender';
import { oneLine } from '../../core/output';
import type { CliCommand, CliIo } from '../io';

export const renderStreamUsage = `Usage: <agent command> | ralph-workbench render-stream [--agent claude|amp|codex]

Reads an agent's JSON stream on stdin and prints it for a person: the assistant's text, each tool
call on one line, the final result with its turns, cost and tokens; other lines pass through.
Last, the run's receipt as a ralph-receipt: line, which Ralph Workbench records in runs.jsonl.
Exit status: 0 when the stream ended with a result that was not an error, else 1 (the agent's
own exit status does not pass through a pipe).

  claude --print --output-format stream-json --verbose < "$RALPH_PROMPT_FILE" | ralph-workbench render-stream
  codex exec --json - < "$RALPH_PROMPT_FILE" | ralph-workbench render-stream --agent codex

In ralph.agent.command (or run --agent-command), \${renderStream} runs the render-stream that came
with the extension or CLI, with no ralph-workbench on PATH: ... | \${renderStream} --agent codex
`;

/** Renders `input` (the agent's stdout) to io.stdout; returns the exit status. */
export async function renderStream(argv: readonly string[], io: CliIo, input: AsyncIterable<string | Uint8Array>): Promise<number> {
  let agent: string;
  try {
    const { values } = parseArgs({ args: argv.filter((a) => a !== 'render-stream'), options: { agent: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true });
    if (values.help) {
      io.stdout(renderStreamUsage);
      return 0;
    }
    agent = values.agent ?? 'claude';
  } catch (e) {
    io.stderr(`ralph-workbench render-stream: ${oneLine(errorMessage(e))}\n\n${renderStreamUsage}`);
    return 1;
  }
  if (!['claude', 'amp', 'codex'].includes(agent)) {
    io.stderr(`ralph-workbench render-stream: --agent is claude, amp or codex (got "${oneLine(agent)}")\n`);
    return 1;
  }
  const renderer = new StreamRenderer(agent);
  const decoder = new TextDecoder();
  for await (const chunk of input) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    const out = renderer.push(text);
    if (out !== '') {
      io.stdout(out);
    }
  }
  io.stdout(renderer.push(decoder.decode()) + renderer.end());
  return renderer.exitCode;
}

export const renderStreamCommand: CliCommand = {
  name: 'render-stream',
  summary: "Print an agent's JSON stream (Claude, Amp, Codex) readably, ending with its ralph-receipt: line.",
  usage: renderStreamUsage,
  run: (argv, io) => renderStream(argv, io, process.stdin),
};
