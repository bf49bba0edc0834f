/** `context <storyId>`: the agent's prompt for one story (src/cli/context.ts does the work). */
import { contextUsage, runContext } from '../context';
import type { CliCommand } from '../io';

export const contextCommand: CliCommand = {
  name: 'context',
  summary: 'Print the prompt the agent would get for a story (context <storyId> --help).',
  usage: contextUsage,
  run: (argv, io) => runContext(argv, io),
  // The prompt is the agent's input: piped on as written, escaped only for a person at a terminal.
  stdoutKind: () => 'document',
};
