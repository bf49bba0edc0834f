/**
 * `ralph-workbench context <storyId>`: prints the prompt an iteration's agent would get for the
 * story (the same builder the extension uses for `.ralph/prompts/`).
 *
 *   context <storyId> [--prd FILE] [--progress FILE] [--pin FILE] [--template FILE]
 *                     [--root DIR] [--recent N]
 *
 * Defaults: prd.json; progress.txt beside it; the workspace root is the PRD's folder (two levels
 * up for scripts/ralph/prd.json); the Pin is <root>/specs/INDEX.md; spec links resolve against the
 * root. A default file that does not exist is left out; a file named on the command line must exist.
 * Default files and spec links must lie inside the root (after symlinks) and be regular files; a
 * spec contributes at most its first 100 lines and 64 KB (src/node/promptInputs.ts).
 * Exit 0 with the prompt on stdout; 1 for an unknown story, an unreadable prd.json, or a bad option.
 */
import path from 'node:path';
import { buildPrompt, PromptError } from '../core/context/prompt';
import { analyzePrd } from '../core/prd/index';
import { type PromptInputs, readPromptInputs } from '../node/promptInputs';
import type { CliIo } from './io';

export const contextUsage = `Usage: ralph-workbench context <storyId> [options]

Print the prompt the agent would get for one story: the Ralph iteration instructions, the
story and its acceptance criteria, the stories it depends on, the Codebase Patterns and recent
entries of progress.txt, and the matching Pin entries with the first lines of their specs.

Options:
  --prd FILE        The PRD (default ./prd.json)
  --progress FILE   progress.txt (default: beside the PRD)
  --pin FILE        The Pin (default: <root>/specs/INDEX.md)
  --template FILE   Your own prompt template ({{story}}, {{acceptanceCriteria}}, {{pin}}, ...)
  --root DIR        Workspace root for spec links (default: the PRD's folder)
  --recent N        Progress entries to include (default 3)
  -h, --help        This help
`;

const VALUE_OPTIONS = ['--prd', '--progress', '--pin', '--template', '--root', '--recent'] as const;
type ValueOption = (typeof VALUE_OPTIONS)[number];

/** True when the command word of argv is `context` (options and their values may come first). */
export function isContextCommand(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((VALUE_OPTIONS as readonly string[]).includes(a)) {
      i++;
    } else if (!a.startsWith('-')) {
      return a === 'context';
    }
  }
  return false;
}

interface ContextArgs {
  storyId?: string;
  options: Partial<Record<ValueOption, string>>;
  help: boolean;
  error?: string;
}

export function parseContextArgs(argv: readonly string[]): ContextArgs {
  const out: ContextArgs = { options: {}, help: false };
  let sawCommand = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    const name = (eq > 0 ? a.slice(0, eq) : a) as ValueOption;
    if (a === '-h' || a === '--help') {
      out.help = true;
    } else if ((VALUE_OPTIONS as readonly string[]).includes(name)) {
      const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (v === undefined || v === '') {
        out.error ??= `${name} needs a value`;
      } else {
        out.options[name] = v;
      }
    } else if (a === '--json') {
      out.error ??= 'context prints markdown; --json is not supported';
    } else if (a.startsWith('-') && a !== '-') {
      out.error ??= `unknown option ${a}`;
    } else if (!sawCommand && a === 'context') {
      sawCommand = true;
    } else if (out.storyId === undefined) {
      out.storyId = a;
    } else {
      out.error ??= `unexpected argument ${a}`;
    }
  }
  return out;
}

export function runContext(argv: readonly string[], io: CliIo): number {
  const args = parseContextArgs(argv);
  if (args.help) {
    io.stdout(contextUsage);
    return 0;
  }
  if (args.error || args.storyId === undefined) {
    io.stderr(`ralph-workbench: ${args.error ?? 'context needs a story id'}\n\n${contextUsage}`);
    return 1;
  }
  const o = args.options;
  const recent = o['--recent'] === undefined ? 3 : Number(o['--recent']);
  if (!Number.isInteger(recent) || recent < 0) {
    io.stderr(`ralph-workbench: --recent needs a whole number, not "${o['--recent']}"\n`);
    return 1;
  }
  const prdPath = o['--prd'] ?? 'prd.json';
  const prdDir = path.dirname(prdPath);
  const root = o['--root'] ?? (/(^|[\\/])scripts[\\/]ralph$/.test(path.resolve(prdDir)) ? path.join(prdDir, '..', '..') : prdDir);
  const progressPath = o['--progress'] ?? path.join(prdDir, 'progress.txt');
  const pinPath = o['--pin'] ?? path.join(root, 'specs', 'INDEX.md');

  // Files named on the command line are the user's choice; the defaults and the Pin's spec links
  // come from the workspace and go through the one prompt-inputs reader (inside the root, bounded).
  const readNamed = (file: string, what: string): { text?: string; error?: string } => {
    try {
      return { text: new TextDecoder('utf-8').decode(io.readFile(file)) };
    } catch (e) {
      return { error: `cannot read ${what} ${file}: ${describe(e)}` };
    }
  };

  let prdBytes: Uint8Array;
  try {
    prdBytes = io.readFile(prdPath);
  } catch (e) {
    io.stderr(`ralph-workbench: cannot read ${prdPath}: ${describe(e)}\n`);
    return 1;
  }
  const rel = (p: string): string => {
    const r = path.relative(root, p);
    return (r === '' || r.startsWith('..') || path.isAbsolute(r) ? p : r).split(path.sep).join('/');
  };
  let inputs: PromptInputs;
  try {
    inputs = readPromptInputs(root, {
      progress: o['--progress'] === undefined ? rel(progressPath) : undefined,
      pin: o['--pin'] === undefined ? rel(pinPath) : undefined,
    });
  } catch (e) {
    io.stderr(`ralph-workbench: ${(e as Error).message}\n`);
    return 1;
  }
  const progress = o['--progress'] === undefined ? { text: inputs.progressText } : readNamed(progressPath, 'progress file');
  const pin = o['--pin'] === undefined ? { text: inputs.pinText } : readNamed(pinPath, 'Pin');
  const template = o['--template'] === undefined ? {} : readNamed(o['--template'], 'template');
  for (const r of [progress, pin, template]) {
    if (r.error) {
      io.stderr(`ralph-workbench: ${r.error}\n`);
      return 1;
    }
  }
  for (const note of inputs.notes) {
    io.stderr(`ralph-workbench: ${note}\n`);
  }
  try {
    const prompt = buildPrompt({
      prd: analyzePrd(prdBytes),
      storyId: args.storyId,
      progressText: progress.text,
      pinText: pin.text,
      template: template.text,
      recentEntries: recent,
      files: { prd: rel(prdPath), progress: rel(progressPath), pin: rel(pinPath) },
      readFile: inputs.readSpec,
    });
    io.stdout(prompt);
    return 0;
  } catch (e) {
    if (e instanceof PromptError) {
      io.stderr(`ralph-workbench: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

function describe(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
}
