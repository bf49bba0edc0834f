/**
 * The terminal executor: runs one agent command in a visible VS Code terminal and reports how it
 * ended, behind the executor interface (src/core/loop/executor.ts).
 * With shell integration: `executeCommand`, the exit code from `onDidEndTerminalShellExecution`,
 * and the output read for the COMPLETE signal. Without it: the command is sent followed by a write
 * of its status to a file the terminal's environment names (src/node/exitStatusFile.ts), and the
 * end is that file. Either way the terminal stays open after the agent, for the user to read.
 *
 * How long to wait for shell integration: a busy machine starts the shell late, so the clock starts
 * when the shell's process exists (`terminal.processId`), not when the terminal was created, and
 * runs for SHELL_INTEGRATION_WINDOW_MS; with `terminal.integrated.shellIntegration.enabled` off
 * there is nothing to wait for. Giving up is no loss of output: only the COMPLETE signal is not read.
 */
import * as vscode from 'vscode';
import type { AgentExecutor, AgentExit, AgentHandle, AgentLaunch } from '../../core/loop/executor';
import { createExitStatusFile, type ExitStatusFile, exitStatusSuffix } from '../../node/exitStatusFile';

/** How long the shell's process may take to exist before the shell-integration clock starts anyway. */
const PROCESS_START_TIMEOUT_MS = 20_000;
/** How long, after the shell's process started, shell integration may take to activate. */
const SHELL_INTEGRATION_WINDOW_MS = 10_000;
/** How long the end of a command waits for its output stream to close (a bound, not a pause). */
const OUTPUT_DRAIN_MS = 2_000;

/** Runs each agent in a terminal of its own (the user watches it; a finished one may be kept open). */
export const terminalExecutor: AgentExecutor<TerminalRun> = {
  start: (launch) => new TerminalRun(launch),
};

export interface TerminalRunRequest extends AgentLaunch {
  /** How long to wait for shell integration after the shell's process started, before falling back (ms). */
  readonly shellIntegrationTimeoutMs?: number;
}

export class TerminalRun implements AgentHandle, vscode.Disposable {
  readonly terminal: vscode.Terminal;
  readonly exit: Promise<AgentExit>;
  private stopRequested = false;
  private readonly disposables: vscode.Disposable[] = [];
  private resolveDone!: (r: AgentExit) => void;
  private finished = false;
  private via: AgentExit['via'] = 'shell-integration';
  /** Where the shell writes the agent's status when there is no shell integration. */
  private readonly statusFile: ExitStatusFile = createExitStatusFile();
  /** Settles when shell integration activates in this terminal (subscribed from its creation). */
  private readonly integrationActivated: Promise<vscode.TerminalShellIntegration>;

  constructor(private readonly request: TerminalRunRequest) {
    this.exit = new Promise((resolve) => (this.resolveDone = resolve));
    this.integrationActivated = new Promise((resolve) => {
      this.disposables.push(
        vscode.window.onDidChangeTerminalShellIntegration((e) => {
          if (e.terminal === this.terminal) {
            resolve(e.shellIntegration);
          }
        }),
      );
    });
    this.terminal = vscode.window.createTerminal({
      name: request.name,
      cwd: vscode.Uri.file(request.cwd),
      env: { ...request.env, ...this.statusFile.env },
      iconPath: new vscode.ThemeIcon('hubot'),
    });
    this.terminal.show(true);
    this.disposables.push(
      vscode.window.onDidCloseTerminal((t) => {
        if (t === this.terminal) {
          // Closed before the agent's end was seen: the status file may hold it; the shell's own status is not the agent's.
          const code = this.via === 'exit-file' ? this.statusFile.readNow() : t.exitStatus?.code;
          this.finish({ exitCode: this.stopRequested ? undefined : code, stopped: this.stopRequested, via: this.via });
        }
      }),
    );
    void this.start();
  }

  /** Ends the agent: Ctrl-C first, then the terminal (and its process tree) after a grace period. */
  async stop(graceMs = 2000): Promise<void> {
    if (this.finished) {
      return;
    }
    this.stopRequested = true;
    this.terminal.sendText('\u0003', false);
    const ended = await Promise.race([this.exit.then(() => true), delay(graceMs).then(() => false)]);
    if (!ended) {
      this.terminal.dispose();
      // onDidCloseTerminal finishes the run; make sure it does even if the event is lost.
      await Promise.race([this.exit, delay(1000)]);
      this.finish({ exitCode: undefined, stopped: true, via: this.via });
    }
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
    this.statusFile.dispose();
  }

  private async start(): Promise<void> {
    const integration = await this.waitForShellIntegration();
    if (this.finished) {
      return;
    }
    if (!integration) {
      this.via = 'exit-file';
      void this.statusFile.status.then((code) =>
        this.finish({ exitCode: this.stopRequested ? undefined : code, stopped: this.stopRequested, via: 'exit-file' }),
      );
      this.terminal.sendText(`${this.request.commandLine}${exitStatusSuffix(vscode.env.shell || '')}`, true);
      return;
    }
    const execution = integration.executeCommand(this.request.commandLine);
    let outputRead: () => void = () => undefined;
    const allRead = new Promise<void>((resolve) => (outputRead = resolve));
    this.disposables.push(
      vscode.window.onDidEndTerminalShellExecution((e) => {
        if (e.execution === execution) {
          // The end can be told before the last output is: the receipt is often the last line.
          void within(allRead, OUTPUT_DRAIN_MS).then(() =>
            this.finish({ exitCode: this.stopRequested ? undefined : e.exitCode, stopped: this.stopRequested, via: 'shell-integration' }),
          );
        }
      }),
    );
    if (this.request.onOutput) {
      try {
        for await (const chunk of execution.read()) {
          this.request.onOutput(chunk);
        }
      } catch {
        // the stream ends with the terminal; nothing to report
      }
    }
    outputRead();
  }

  /** The terminal's shell integration, once active; undefined when it is off or did not come in time. */
  private async waitForShellIntegration(): Promise<vscode.TerminalShellIntegration | undefined> {
    if (this.terminal.shellIntegration) {
      return this.terminal.shellIntegration;
    }
    const enabled = vscode.workspace
      .getConfiguration('terminal.integrated', vscode.Uri.file(this.request.cwd))
      .get<boolean>('shellIntegration.enabled', true);
    if (!enabled) {
      return undefined;
    }
    // The clock starts when the shell's process exists: a busy machine may take long to get there.
    await within(Promise.resolve(this.terminal.processId), PROCESS_START_TIMEOUT_MS);
    await within(this.integrationActivated, this.request.shellIntegrationTimeoutMs ?? SHELL_INTEGRATION_WINDOW_MS);
    return this.terminal.shellIntegration;
  }

  private finish(result: AgentExit): void {
    if (this.finished) {
      return;
    }
    this.finished = true;
    this.resolveDone(result);
  }
}

/** `p`, or undefined after `ms` (the timer does not outlive the race). */
async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
