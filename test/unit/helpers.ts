/** Builders and small utilities shared by the unit tests. */
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../../src/cli/main';
import { analyzePrd, type PrdAnalysis } from '../../src/core/prd/index';
import type { Problem, ProblemCode } from '../../src/core/prd/problems';

export interface StoryInput {
  id: string;
  title?: string;
  /** `null` leaves the field out. */
  priority?: number | null;
  passes?: boolean;
  description?: string;
  acceptanceCriteria?: string[];
  blockedBy?: string[];
  notes?: string;
  [extra: string]: unknown;
}

/** A complete story object with defaults for every required field. */
export function story(input: StoryInput): Record<string, unknown> {
  const { id, title, priority, passes, description, acceptanceCriteria, blockedBy, ...rest } = input;
  const out: Record<string, unknown> = {
    id,
    title: title ?? `Story ${id}`,
  };
  if (priority !== null) {
    out.priority = priority ?? 1;
  }
  out.passes = passes ?? false;
  out.description = description ?? `As a user, I want ${id}.`;
  out.acceptanceCriteria = acceptanceCriteria ?? ['Typecheck passes'];
  if (blockedBy !== undefined) {
    out.blockedBy = blockedBy;
  }
  return { ...out, ...rest };
}

/** prd.json text (2-space indentation, one field per line, like the snarktank examples). */
export function makePrd(stories: StoryInput[], top: Record<string, unknown> = {}, indent: string | number = 2): string {
  const prd = {
    projectName: 'Demo',
    branchName: 'ralph/demo',
    description: 'A demo feature.',
    ...top,
    userStories: stories.map(story),
  };
  return `${JSON.stringify(prd, null, indent)}\n`;
}

/** 1-based line of the `nth` (0-based) occurrence of `needle` in `text`. */
export function lineOf(text: string, needle: string, nth = 0): number {
  let at = -1;
  for (let k = 0; k <= nth; k++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) {
      throw new Error(`"${needle}" occurs fewer than ${nth + 1} times`);
    }
  }
  return text.slice(0, at).split(/\r\n|\r|\n/).length;
}

/** 1-based column of the `nth` occurrence of `needle` in `text`. */
export function columnOf(text: string, needle: string, nth = 0): number {
  let at = -1;
  for (let k = 0; k <= nth; k++) {
    at = text.indexOf(needle, at + 1);
  }
  const lineStart = Math.max(text.lastIndexOf('\n', at - 1), text.lastIndexOf('\r', at - 1)) + 1;
  return at - lineStart + 1;
}

/** 1-based line and column of a problem's start. */
export function where(p: Problem): { line: number; column: number } {
  return { line: p.range.start.line + 1, column: p.range.start.character + 1 };
}

export function analyze(text: string | Uint8Array): PrdAnalysis {
  return analyzePrd(text);
}

export function problemsOf(a: PrdAnalysis, code: ProblemCode): Problem[] {
  return a.problems.filter((p) => p.code === code);
}

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** How the in-memory stdout looks to the CLI. */
export interface CliOptions {
  /** stdout is a terminal (default: a pipe). */
  readonly terminal?: boolean;
}

/** runCli against an in-memory file system (`files`), or the real one when `files` is 'disk'. */
export function cli(argv: string[], files: Record<string, string | Uint8Array> | 'disk' = {}, options: CliOptions = {}): CliRun {
  const r = cliAny(argv, files, options);
  if (r.code instanceof Promise) {
    throw new Error(`${argv[0]} is asynchronous: use cliAsync`);
  }
  return { code: r.code, stdout: r.out(), stderr: r.err() };
}

/** cli() for the asynchronous commands (compact, pin). */
export async function cliAsync(argv: string[], files: Record<string, string | Uint8Array> | 'disk' = {}, options: CliOptions = {}): Promise<CliRun> {
  const r = cliAny(argv, files, options);
  const code = await r.code;
  return { code, stdout: r.out(), stderr: r.err() };
}

function cliAny(argv: string[], files: Record<string, string | Uint8Array> | 'disk', options: CliOptions): { code: number | Promise<number>; stdout: string; stderr: string; out: () => string; err: () => string } {
  let stdout = '';
  let stderr = '';
  const code = runCli(argv, {
    terminal: options.terminal ?? false,
    stdout: (s) => {
      stdout += s;
    },
    stderr: (s) => {
      stderr += s;
    },
    readFile: (path) => {
      if (files === 'disk') {
        return readFileSync(path);
      }
      const f = files[path];
      if (f === undefined) {
        const e: NodeJS.ErrnoException = new Error(`ENOENT: no such file or directory, open '${path}'`);
        e.code = 'ENOENT';
        throw e;
      }
      return typeof f === 'string' ? new TextEncoder().encode(f) : f;
    },
  });
  return { code, stdout, stderr, out: () => stdout, err: () => stderr };
}

/**
 * A private copy of the built CLI in `dir` (dist/cli.js and the command bundles in dist/cli/), so
 * that a concurrent `npm run build`, which empties dist/, cannot pull it away mid-test. Returns
 * the copy of cli.js.
 */
export function copyBuiltCli(dir: string): string {
  const dist = path.resolve(__dirname, '../../dist');
  cpSync(path.join(dist, 'cli.js'), path.join(dir, 'cli.js'));
  cpSync(path.join(dist, 'cli'), path.join(dir, 'cli'), { recursive: true });
  return path.join(dir, 'cli.js');
}
