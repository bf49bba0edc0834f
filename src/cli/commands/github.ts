/**
 * `ralph-workbench github <subcommand>`: GitHub as the engine (issue 20). Each subcommand is a
 * module of src/cli/github/, loaded with this one (`github` is one bundle: dist/cli/github.js).
 */
import { oneLine } from '../../core/output';
import { dispatchUsage, runDispatchCommand } from '../github/dispatchCommand';
import { ACTION_STEPS, runActionStep } from '../github/actionSteps';
import { publishUsage, runPublish } from '../github/publishCommand';
import { runStatus, statusUsage } from '../github/statusCommand';
import { runWorkflowCommand, workflowUsage } from '../github/workflowCommand';
import type { CliCommand, CliIo } from '../io';

interface Subcommand {
  readonly summary: string;
  readonly run: (argv: readonly string[], io: CliIo) => number | Promise<number>;
  /** Listed in the usage (the workflow's own steps are not). */
  readonly listed: boolean;
}

const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
  publish: { summary: `Publish the stories as issues with native "blocked by" (${publishUsage.split('\n')[0].replace(/^Usage: /, '')})`, run: (argv, io) => runPublish(argv, io), listed: true },
  status: { summary: `Where each published story stands on GitHub (${statusUsage.split('\n')[0].replace(/^Usage: /, '')})`, run: (argv, io) => runStatus(argv, io), listed: true },
  workflow: { summary: `Write .github/workflows/ralph.yml (${workflowUsage.split('\n')[0].replace(/^Usage: /, '')})`, run: (argv, io) => runWorkflowCommand(argv, io), listed: true },
  dispatch: { summary: `Run the ready stories on GitHub Actions (${dispatchUsage.split('\n')[0].replace(/^Usage: /, '')})`, run: (argv, io) => runDispatchCommand(argv, io), listed: true },
  ...Object.fromEntries(Object.keys(ACTION_STEPS).map((name) => [name, { summary: 'A step of the ralph.yml workflow', run: (argv: readonly string[], io: CliIo) => runActionStep(name, argv, io), listed: false }])),
};

const usage = `Usage: ralph-workbench github <subcommand> [options]

${Object.entries(SUBCOMMANDS)
  .filter(([, s]) => s.listed)
  .map(([name, s]) => `  ${name.padEnd(10)} ${s.summary}`)
  .join('\n')}

The workflow's steps call: ${Object.keys(ACTION_STEPS).join(', ')}.
\`ralph-workbench github <subcommand> --help\` says more.
`;

export const githubCommand: CliCommand = {
  name: 'github',
  summary: 'GitHub as the engine: publish the stories as issues, write the Actions workflow, dispatch ready\nstories, follow them.',
  usage,
  run(argv, io) {
    const at = argv.indexOf('github');
    const word = argv.slice(at + 1).find((a) => !a.startsWith('-'));
    const sub = word !== undefined ? SUBCOMMANDS[word] : undefined;
    if (sub && Object.hasOwn(SUBCOMMANDS, word as string)) {
      return sub.run(argv, io);
    }
    if (word === undefined && (argv.includes('--help') || argv.includes('-h'))) {
      io.stdout(usage);
      return 0;
    }
    io.stderr(`ralph-workbench github: ${word === undefined ? 'which subcommand?' : `unknown subcommand "${oneLine(word)}"`}\n\n${usage}`);
    return 1;
  },
};
