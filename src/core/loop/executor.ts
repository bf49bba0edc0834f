/**
 * The executor: how an iteration's agent command is run, behind one interface. The extension runs
 * it in a visible terminal (src/services/run/terminalExecutor.ts); a headless run (the CLI, a wave
 * of worktrees) runs it as a child process with the same request and the same handle.
 */

export interface AgentLaunch {
  /** What the user sees the run as (the terminal's name). */
  readonly name: string;
  /** Absolute path of the folder the agent runs in. */
  readonly cwd: string;
  /** The line from planAgentCommand: settings text and environment references only. */
  readonly commandLine: string;
  /** RALPH_STORY_ID, RALPH_PROMPT_FILE, RALPH_WORKSPACE_FOLDER (agentEnvironment). */
  readonly env: Readonly<Record<string, string>>;
  /** Each chunk of the agent's output, when the executor can read it (for the COMPLETE signal). */
  readonly onOutput?: (chunk: string) => void;
}

export interface AgentExit {
  /** The agent's exit code; undefined when it could not be known (stopped, or the shell did not say). */
  readonly exitCode: number | undefined;
  /** True when the agent was ended by stop(). */
  readonly stopped: boolean;
  /** How the end was observed. */
  readonly via: 'shell-integration' | 'exit-file' | 'process';
}

export interface AgentHandle {
  /** Settles once, when the agent has ended. */
  readonly exit: Promise<AgentExit>;
  /** Ends the agent now; `exit` then settles with `stopped: true`. */
  stop(): Promise<void>;
  /** Releases what watched the agent (not the terminal a user may still read). */
  dispose(): void;
}

export interface AgentExecutor<H extends AgentHandle = AgentHandle> {
  start(launch: AgentLaunch): H;
}
