/** What a CLI command may touch: output streams and file reads (tests pass an in-memory one). */
export interface CliIo {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  readonly readFile: (path: string) => Uint8Array;
}

/** One command of the CLI table (src/cli/commands/<name>.ts). */
export interface CliCommand {
  readonly name: string;
  /** One line (or two) for the overall usage. */
  readonly summary: string;
  /** The command's own usage, printed by `<name> --help`. */
  readonly usage: string;
  /** Runs with the whole argv (the command word included, wherever it is). Returns the exit code. */
  readonly run: (argv: readonly string[], io: CliIo) => number | Promise<number>;
}
