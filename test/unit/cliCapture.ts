/** A captured io for running CLI commands in this process. */
import type { Interrupts } from '../../src/cli/commands/run';
import type { CliIo } from '../../src/cli/io';

/** What a run printed, and a way to interrupt it as SIGINT would. */
export function capture(): { io: CliIo; out: { stdout: string; stderr: string }; interrupts: Interrupts & { fire(signal: string): void } } {
  const out = { stdout: '', stderr: '' };
  let handler: ((signal: string) => void) | undefined;
  return {
    out,
    io: { stdout: (t: string) => void (out.stdout += t), stderr: (t: string) => void (out.stderr += t), readFile: () => { throw new Error('run reads no files through io'); } },
    interrupts: {
      on: (h) => {
        handler = h;
        return () => (handler = undefined);
      },
      exit: () => undefined,
      fire: (signal) => handler?.(signal),
    },
  };
}

