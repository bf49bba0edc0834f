/**
 * The headless executor: runs an iteration's agent command as a child process (the shell Node
 * uses for `shell: true`: /bin/sh, cmd.exe on Windows), for runs with no terminal to show (the CLI,
 * a wave of worktrees). The same request and handle as the terminal executor
 * (src/core/loop/executor.ts); the output is read for the COMPLETE signal.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { AgentExecutor, AgentExit, AgentHandle, AgentLaunch } from '../core/loop/executor';

export const processExecutor: AgentExecutor<ProcessRun> = {
  start: (launch) => new ProcessRun(launch),
};

/** Every agent this process started that has not ended yet. */
const running = new Set<ProcessRun>();

/**
 * SIGKILL to every running agent's process group, at once (synchronously): for a process about to
 * exit without waiting out a stop's grace (a second Ctrl+C). An agent runs in a group of its own,
 * so it would outlive its parent, re-parented, if nothing ended it.
 */
export function killRunningAgents(): void {
  for (const run of running) {
    run.kill();
  }
}

export class ProcessRun implements AgentHandle {
  readonly exit: Promise<AgentExit>;
  private readonly child: ChildProcess;
  private stopRequested = false;
  private ended = false;

  constructor(launch: AgentLaunch) {
    // Its own process group on POSIX, so that stop() ends what the agent started too.
    this.child = spawn(launch.commandLine, {
      cwd: launch.cwd,
      env: { ...process.env, ...launch.env },
      shell: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    for (const stream of [this.child.stdout, this.child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => launch.onOutput?.(chunk));
    }
    running.add(this);
    this.exit = new Promise((resolve) => {
      const done = (code: number | null): void => {
        this.ended = true;
        running.delete(this);
        resolve({ exitCode: this.stopRequested || code === null ? undefined : code, stopped: this.stopRequested, via: 'process' });
      };
      this.child.on('close', done);
      // The shell itself could not start: no exit code to report.
      this.child.on('error', () => done(null));
    });
  }

  /** Ends the agent: SIGTERM to its process group, SIGKILL after a grace period. */
  async stop(graceMs = 2000): Promise<void> {
    if (this.ended) {
      return;
    }
    this.stopRequested = true;
    this.signal('SIGTERM');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = await Promise.race([this.exit.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), graceMs)))]);
    clearTimeout(timer);
    if (!ended) {
      this.signal('SIGKILL');
      await this.exit;
    }
  }

  /** SIGKILL to the agent's process group now, without a grace period. */
  kill(): void {
    if (!this.ended) {
      this.stopRequested = true;
      this.signal('SIGKILL');
    }
  }

  dispose(): void {
    this.child.stdout?.removeAllListeners('data');
    this.child.stderr?.removeAllListeners('data');
  }

  private signal(signal: NodeJS.Signals): void {
    try {
      if (this.child.pid !== undefined && process.platform !== 'win32') {
        process.kill(-this.child.pid, signal);
      } else {
        this.child.kill(signal);
      }
    } catch {
      // already gone
    }
  }
}
