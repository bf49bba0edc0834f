/**
 * The terminal executor: runs one agent command in a visible VS Code terminal and reports how it
 * ended, behind the executor interface (src/core/loop/executor.ts).
 * With shell integration: `executeCommand`, the exit code from `onDidEndTerminalShellExecution`,
 * and the output read for the COMPLETE signal. Without it: the command is sent followed by an
 * `exit` of its status, and the end is the terminal closing (its exit status is the agent's).
 */
import * as vscode from 'vscode';
import type { AgentExecutor, AgentExit, AgentHandle, AgentLaunch } from '../../core/loop/executor';

/** Runs each agent in a terminal of its own (the user watches it; a finished one may be kept open). */
export const terminalExecutor: AgentExecutor<TerminalRun> = {
  start: (launch) => new TerminalRun(launch),
};

export interface TerminalRunRequest extends AgentLaunch {
  /** How long to wait for shell integration before falling back (ms). */
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

  constructor(private readonly request: TerminalRunRequest) {
    this.exit = new Promise((resolve) => (this.resolveDone = resolve));
    this.terminal = vscode.window.createTerminal({
      name: request.name,
      cwd: vscode.Uri.file(request.cwd),
      env: { ...request.env },
      iconPath: new vscode.ThemeIcon('hubot'),
    });
    this.terminal.show(true);
    this.disposables.push(
      vscode.window.onDidCloseTerminal((t) => {
        if (t === this.terminal) {
          const code = t.exitStatus?.code;
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
  }

  private async start(): Promise<void> {
    const integration = await this.waitForShellIntegration(this.request.shellIntegrationTimeoutMs ?? 4000);
    if (this.finished) {
      return;
    }
    if (!integration) {
      this.via = 'terminal-exit';
      this.terminal.sendText(`${this.request.commandLine}${exitSuffix()}`, true);
      return;
    }
    const execution = integration.executeCommand(this.request.commandLine);
    this.disposables.push(
      vscode.window.onDidEndTerminalShellExecution((e) => {
        if (e.execution === execution) {
          this.finish({ exitCode: this.stopRequested ? undefined : e.exitCode, stopped: this.stopRequested, via: 'shell-integration' });
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
  }

  private waitForShellIntegration(timeoutMs: number): Promise<vscode.TerminalShellIntegration | undefined> {
    if (this.terminal.shellIntegration) {
      return Promise.resolve(this.terminal.shellIntegration);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        sub.dispose();
        resolve(this.terminal.shellIntegration);
      }, timeoutMs);
      const sub = vscode.window.onDidChangeTerminalShellIntegration((e) => {
        if (e.terminal === this.terminal) {
          clearTimeout(timer);
          sub.dispose();
          resolve(e.shellIntegration);
        }
      });
      this.disposables.push(sub);
    });
  }

  private finish(result: AgentExit): void {
    if (this.finished) {
      return;
    }
    this.finished = true;
    this.resolveDone(result);
  }
}

/** After the command, end the shell with the command's status, so the terminal's exit status is the agent's. */
function exitSuffix(): string {
  const shell = (vscode.env.shell || '').toLowerCase();
  if (/pwsh|powershell/.test(shell)) {
    return '; exit $LASTEXITCODE';
  }
  if (/cmd\.exe$/.test(shell)) {
    return ' & exit %ERRORLEVEL%';
  }
  return '; exit $?';
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
