/**
 * One iteration, without VS Code: the command the settings select (resolved by the tested
 * `resolveAgentCommand`, expanded so that no workspace value is on the line, the program looked up
 * on PATH), and what an iteration observed turned into the loop's verdict and the runs.jsonl line.
 * The runner (src/services/run/engine.ts) and the fake-agent tests both run iterations through here.
 */
import { missingExecutableMessage, type PathLookup, PRESET_SETTING, resolveAgentCommand, resolveExecutable } from '../agents/presets';
import { agentEnvironment, checkTemplate, COMMAND_SETTING, envOnCommandLine, expandTemplate, type ShellKind, TemplateError, type TemplateVars } from '../agents/template';
import { detectLimit, type LimitVerdict } from '../insights/limits';
import { failureDetails } from '../insights/signature';
import { type Receipt, receiptFields, spendOf } from '../insights/receipts';
import type { PrdAnalysis } from '../prd/index';
import { detectFeatCommit, type FeatCommit, MAX_UNCOMMITTED, type RunRecord } from '../runs/runs';
import type { IterationRecord, LoopController } from './loop';

export interface AgentCommandRequest {
  /** `ralph.agent.preset`. */
  readonly presetId: string;
  /** `ralph.agent.command` (blank: the preset's). */
  readonly command: string;
  readonly shell: ShellKind;
  /** Whether a workspace-relative file exists (to find ralph.sh). */
  readonly exists: (relativePath: string) => boolean;
  /** The values the placeholders stand for; they travel in the terminal's environment. */
  readonly vars: TemplateVars;
  /** How to find the agent's program (cwd is the workspace folder); undefined: do not look. */
  readonly lookup?: Omit<PathLookup, 'cwd'>;
  /** How this install runs its render-stream, for `${renderStream}`; undefined: not known here. */
  readonly renderStream?: RenderStreamCommand;
}

/** The bundled render-stream: the words that run it (from the install, never the workspace) and the environment they need. */
export interface RenderStreamCommand {
  /** Program, script, `render-stream`: e.g. VS Code's executable and the extension's dist/cli.js. */
  readonly argv: readonly string[];
  /**
   * The environment the renderer alone needs (ELECTRON_RUN_AS_NODE for VS Code's executable): on the
   * line (`env NAME=value …`) in POSIX shells and fish; in the terminal's environment in PowerShell
   * and cmd.exe, which have no exact scoped form (template.ts envOnCommandLine).
   */
  readonly env?: Readonly<Record<string, string>>;
}

export type AgentCommandPlan =
  | {
      readonly ok: true;
      /** The line typed into the terminal: settings text and environment references only. */
      readonly commandLine: string;
      /** The terminal's environment: RALPH_STORY_ID, RALPH_PROMPT_FILE, RALPH_WORKSPACE_FOLDER (and, in PowerShell and cmd.exe, the renderer's when the line runs it). */
      readonly env: Readonly<Record<string, string>>;
      readonly warnings: readonly string[];
      /** The program found on PATH, when it could be known. */
      readonly executable?: string;
      /**
       * What runs.jsonl records as the agent: the preset's id, or, for a command line of the user's
       * own (`ralph.agent.command`), the name of the program it starts (`my-agent`, `node`).
       */
      readonly agent: string;
    }
  | {
      readonly ok: false;
      readonly message: string;
      /** `missing-program`: the program is not on PATH; `bad-command`: the settings select no usable command line. */
      readonly reason: 'missing-program' | 'bad-command';
      /** The setting to change (the error's "Open Setting" button). */
      readonly setting: string;
      /** The program looked for (missing-program). */
      readonly program?: string;
    };

/** The agent command of an iteration, or the message that says which setting to change. */
export function planAgentCommand(req: AgentCommandRequest): AgentCommandPlan {
  const resolved = resolveAgentCommand({ presetId: req.presetId, command: req.command, shell: req.shell, exists: req.exists });
  const custom = req.command.trim() !== '';
  if (!resolved.ok) {
    return { ...resolved, reason: 'bad-command' };
  }
  let commandLine: string;
  try {
    commandLine = expandTemplate(resolved.template, req.vars, req.shell, {
      renderStream: req.renderStream?.argv,
      renderStreamEnv: req.renderStream?.env,
    });
  } catch (e) {
    if (e instanceof TemplateError) {
      return { ok: false, message: e.message, reason: 'bad-command', setting: custom ? COMMAND_SETTING : PRESET_SETTING };
    }
    throw e;
  }
  let executable: string | undefined;
  if (resolved.executable && req.lookup) {
    executable = resolveExecutable(resolved.executable, { ...req.lookup, cwd: req.vars.workspaceFolder });
    if (!executable) {
      return {
        ok: false,
        message: missingExecutableMessage(resolved.executable, custom ? 'custom' : resolved.presetId),
        reason: 'missing-program',
        setting: custom ? COMMAND_SETTING : PRESET_SETTING,
        program: resolved.executable,
      };
    }
  }
  const agent = custom ? (programName(resolved.executable) ?? 'custom') : resolved.presetId;
  // Where the line cannot scope it to the renderer (PowerShell, cmd.exe), the whole terminal gets it.
  const rendererEnv = !envOnCommandLine(req.shell) && checkTemplate(resolved.template, req.shell).rendersStream ? req.renderStream?.env : undefined;
  return { ok: true, commandLine, env: { ...agentEnvironment(req.vars), ...rendererEnv }, warnings: resolved.warnings, executable, agent };
}

/** What the caller saw of one iteration. */
export interface IterationObservation {
  readonly storyId: string;
  readonly storyTitle: string;
  /** Agent preset id (or "custom"). */
  readonly agent: string;
  /** ms since the epoch. */
  readonly started: number;
  readonly ended: number;
  readonly exitCode: number | null;
  readonly stopped: boolean;
  readonly completeSignal: boolean;
  readonly before: PrdAnalysis;
  /** prd.json after the iteration; undefined when it no longer exists. */
  readonly after: PrdAnalysis | undefined;
  /** Commits made during the iteration, newest first; undefined when git was not checked. */
  readonly commits: readonly FeatCommit[] | undefined;
  /** Paths the agent left changed but uncommitted (git status, `.ralph/` excluded); undefined when git was not checked. */
  readonly uncommitted?: readonly string[];
  /** Workspace-relative prompt file. */
  readonly promptFile: string;
  readonly iteration: number;
  readonly loopId: string;
  /** The end of the agent's output, when the executor could read it (for its limit messages). */
  readonly output?: string;
  /** The IANA time zone a reset time printed without one is read in (where the agent ran). */
  readonly timeZone?: string;
  /** What the agent's output said it cost; undefined when its output could not be read. */
  readonly receipt?: Receipt;
}

/** Reports the iteration to the loop and returns its verdict, the runs.jsonl line and the agent's limit (a rate-limited run). */
export function completeIteration(loop: LoopController, o: IterationObservation): { record: IterationRecord; line: RunRecord; limit?: LimitVerdict } {
  const afterStory = o.after?.doc.stories.find((s) => s.id === o.storyId);
  const commit = o.commits === undefined ? undefined : detectFeatCommit(o.commits, o.storyId);
  const passingBefore = o.before.readiness.counts.done;
  const passingAfter = o.after?.readiness.counts.done ?? 0;
  const storyPasses = afterStory?.passes ?? false;
  const limit = o.output === undefined ? undefined : detectLimit({ exitCode: o.exitCode, stopped: o.stopped, output: o.output, end: new Date(o.ended), timeZone: o.timeZone });
  const record = loop.recordIteration({
    storyId: o.storyId,
    exitCode: o.exitCode,
    passingBefore,
    passingAfter,
    totalAfter: o.after?.readiness.counts.total,
    storyPasses,
    completeSignal: o.completeSignal,
    stopped: o.stopped,
    prdReadable: o.after?.readable ?? false,
    commit: commit === undefined ? undefined : commit?.subject ?? null,
    limit,
    spent: spendOf(o.receipt),
    agent: o.agent,
  });
  const limited = record.outcome === 'rate-limited' ? limit : undefined;
  const failure = record.outcome === 'failed' && o.output !== undefined ? failureDetails(o.output) : undefined;
  const uncommitted = o.uncommitted ?? [];
  const line: RunRecord = {
    start: new Date(o.started).toISOString(),
    end: new Date(o.ended).toISOString(),
    storyId: o.storyId,
    storyTitle: o.storyTitle,
    agent: o.agent,
    exitCode: o.exitCode,
    durationMs: o.ended - o.started,
    passingBefore,
    passingAfter,
    storyPasses,
    commit: commit ?? null,
    complete: o.completeSignal,
    outcome: record.outcome,
    promptFile: o.promptFile,
    iteration: o.iteration,
    loopId: o.loopId,
    ...receiptFields(o.receipt),
    ...(limited?.resetAt ? { resetAt: limited.resetAt.toISOString() } : {}),
    ...(failure ? { signature: failure.signature, errorLines: failure.errorLines } : {}),
    ...(uncommitted.length > 0
      ? { uncommitted: uncommitted.slice(0, MAX_UNCOMMITTED), ...(uncommitted.length > MAX_UNCOMMITTED ? { uncommittedMore: uncommitted.length - MAX_UNCOMMITTED } : {}) }
      : {}),
  };
  return { record, line, ...(limited ? { limit: limited } : {}) };
}

/** The file name of a program (`/usr/bin/my-agent` → `my-agent`, `C:\\tools\\agent.exe` → `agent.exe`). */
function programName(executable: string | undefined): string | undefined {
  const name = executable?.split(/[\\/]/).pop()?.trim();
  return name ? name : undefined;
}
