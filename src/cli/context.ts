/**
 * `ralph-workbench context <storyId>` (or `--story ID`): prints the prompt an iteration's agent
 * would get for the story (the same builder the extension uses for `.ralph/prompts/`, the issue
 * plan included, read through the same readIssues + readIssuePlan).
 *
 *   context <storyId> [--prd FILE] [--progress FILE] [--pin FILE] [--template FILE]
 *                     [--root DIR] [--recent N] [--repo O/R] [--api-url URL] [--offline]
 *
 * Defaults: prd.json; progress.txt beside it; the workspace root is the PRD's folder (two levels
 * up for scripts/ralph/prd.json); the Pin is <root>/specs/INDEX.md; spec links resolve against the
 * root. A default file that does not exist is left out; a file named on the command line must exist.
 * Default files and spec links must lie inside the root (after symlinks) and be regular files; a
 * spec contributes at most its first 100 lines and 64 KB (src/node/promptInputs.ts).
 * Exit 0 with the prompt on stdout; 1 for an unknown story, an unreadable prd.json, or a bad option.
 */
import path from 'node:path';
import type { IssuePlanInput } from '../core/artifacts/promptSection';
import { issuesOfStory } from '../core/artifacts/storyIssues';
import { buildPrompt, PromptError } from '../core/context/prompt';
import { analyzePrd, type PrdAnalysis } from '../core/prd/index';
import { readIssuePlan, readIssues } from '../node/github/artifacts';
import { type PromptInputs, readPromptInputs } from '../node/promptInputs';
import { type GitHubCliOptions, openGitHub } from './githubAccess';
import type { CliIo } from './io';

export const contextUsage = `Usage: ralph-workbench context <storyId> [options]
       ralph-workbench context --story <storyId> [options]

Print the prompt the agent would get for one story: the Ralph iteration instructions, the
story and its acceptance criteria, the stories it depends on, the Codebase Patterns and recent
entries of progress.txt, the matching Pin entries with the first lines of their specs, and,
for a story with a GitHub issue, the issue's plan as the extension puts it in the prompt
(linked by a trusted comment, or found in thoughts/shared by its file name).

Options:
  --story ID        The story (the same as the positional <storyId>)
  --prd FILE        The PRD (default ./prd.json)
  --progress FILE   progress.txt (default: beside the PRD)
  --pin FILE        The Pin (default: <root>/specs/INDEX.md)
  --template FILE   Your own prompt template ({{story}}, {{acceptanceCriteria}}, {{pin}}, ...)
  --root DIR        Workspace root for spec links (default: the PRD's folder)
  --recent N        Progress entries to include (default 3)
  --repo O/R        The issue's repository (default: the origin remote)
  --api-url URL     REST base: https://api.github.com (default), https://HOST/api/v3 for Enterprise
  --offline         Do not contact GitHub: plans found on disk by file name only
  -h, --help        This help

The token comes from GH_TOKEN or GITHUB_TOKEN; without one, plans on disk only.
`;

const VALUE_OPTIONS = ['--prd', '--progress', '--pin', '--template', '--root', '--recent', '--story', '--repo', '--api-url'] as const;
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
  offline: boolean;
  help: boolean;
  error?: string;
}

export function parseContextArgs(argv: readonly string[]): ContextArgs {
  const out: ContextArgs = { options: {}, offline: false, help: false };
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
    } else if (a === '--offline') {
      out.offline = true;
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
  const story = out.options['--story'];
  if (story !== undefined) {
    if (out.storyId !== undefined && out.storyId !== story) {
      out.error ??= `name one story: "${out.storyId}" and --story ${story}`;
    }
    out.storyId = story;
  }
  return out;
}

/** The CLI's io, plus what reading GitHub needs (tests pass their own). */
export type ContextIo = CliIo & { readonly env?: NodeJS.ProcessEnv; readonly clientOptions?: GitHubCliOptions['clientOptions'] };

/**
 * Prints the prompt. Synchronous for a story without an issue; a story that belongs to issues
 * (its `issue` field, GH-<n> or #<n>) has them read from GitHub and thoughts/shared first, and
 * the prompt gets the issue-plan section exactly as the extension's runner builds it.
 */
export function runContext(argv: readonly string[], io: ContextIo): number | Promise<number> {
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
  const prd = analyzePrd(prdBytes);
  const storyId = args.storyId;
  const print = (issuePlan?: IssuePlanInput): number => {
    try {
      const prompt = buildPrompt({
        prd,
        storyId,
        progressText: progress.text,
        pinText: pin.text,
        template: template.text,
        recentEntries: recent,
        files: { prd: rel(prdPath), progress: rel(progressPath), pin: rel(pinPath) },
        readFile: inputs.readSpec,
        issuePlan,
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
  };
  const issues = storyIssueNumbers(prd, storyId);
  if (issues.length === 0) {
    return print();
  }
  return (async () => {
    const gh = await openGitHub({ repo: o['--repo'], apiUrl: o['--api-url'], offline: args.offline, env: io.env ?? process.env, root, clientOptions: io.clientOptions, prefix: 'ralph-workbench context', stderr: io.stderr });
    if ('error' in gh) {
      io.stderr(gh.error);
      return 1;
    }
    // The same readers as the extension: the issues' artifacts, then the plan for the prompt.
    const read = await readIssues({ root, repo: gh.repo, client: gh.client, issues, offlineReason: gh.offlineReason });
    for (const r of read) {
      if (r.errorKind) {
        io.stderr(`ralph-workbench context: #${r.result.number}: ${r.result.error} (the prompt has the documents on disk only)\n`);
      }
    }
    return print(await readIssuePlan(root, read.map((r) => r.result)));
  })();
}

/** The issues of a story, lowest number first (the order the extension's GitHub view keeps). */
function storyIssueNumbers(prd: PrdAnalysis, storyId: string): number[] {
  const story = prd.doc.stories.find((s) => s.id === storyId);
  return story ? issuesOfStory(story).sort((a, b) => a - b) : [];
}

function describe(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
}
