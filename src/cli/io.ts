/** What a CLI command may touch: output streams and file reads (tests pass an in-memory one). */
export interface CliIo {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  readonly readFile: (path: string) => Uint8Array;
  /** stdout is a terminal (a person reads it), not a pipe or a file. */
  readonly terminal?: boolean;
}

/**
 * What a command prints on stdout: `text` for a person (control and bidi characters escaped, see
 * core/output.ts `visibleControls`), `json` for a program (the data as it is), `document` a text
 * that is itself the product (the agent's prompt, the Pin): as it is when piped or redirected,
 * escaped when stdout is a terminal. stderr is always for a person.
 */
export type StdoutKind = 'text' | 'json' | 'document';

/** One command of the CLI table (src/cli/commands/<name>.ts). */
export interface CliCommand {
  readonly name: string;
  /** One line (or two) for the overall usage. */
  readonly summary: string;
  /** The command's own usage, printed by `<name> --help`. */
  readonly usage: string;
  /** Runs with the whole argv (the command word included, wherever it is). Returns the exit code. */
  readonly run: (argv: readonly string[], io: CliIo) => number | Promise<number>;
  /** What stdout carries for these arguments. Default: `json` with --json, else `text`. */
  readonly stdoutKind?: (argv: readonly string[]) => StdoutKind;
}
