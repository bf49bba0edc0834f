/** `pin`: the Pin (specs/INDEX.md) generated for a repository (src/cli/pin.ts does the work). */
import { pin } from '../pin';
import { memoryCommand } from './memory';

export const pinCommand = memoryCommand(
  'pin',
  'Generate the Pin (specs/INDEX.md) for the repository, merged with the existing one\n(pin --help).',
  pin,
  // Without --write it prints the Pin itself: a document (redirected into specs/INDEX.md as it is).
  (argv) => (argv.includes('--json') ? 'json' : argv.includes('--write') ? 'text' : 'document'),
);
