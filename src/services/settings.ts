/**
 * The one place the extension reads its settings. Every key is declared once in SETTING_KEYS (its
 * name under `ralph.` and its default, the same as in package.json, which a unit test checks);
 * every read goes through `readSettings` (a typed snapshot for a folder) or `readSetting` (one
 * key), and `affects` tells whether a configuration change touches some keys.
 */
import * as vscode from 'vscode';
import type { AgentPresetId } from '../core/agents/presets';
import { type Budget, budgetOf } from '../core/insights/budget';
import type { MergeMode } from '../core/parallel/state';
import { SETTING_KEYS, type SettingName, SETTINGS_SECTION, type SettingValues } from '../core/settingKeys';
import { usableSettings } from '../core/settingValues';

export { SETTING_KEYS, type SettingName, settingId, SETTINGS_SECTION } from '../core/settingKeys';

export interface RalphSettings {
  readonly prdPath: string;
  readonly progressPath: string;
  readonly pinPath: string;
  readonly agentPreset: AgentPresetId;
  readonly agentCommand: string;
  /** ralph.agent.fallback: presets to switch to while the agent is limited (issue 21). */
  readonly agentFallback: readonly string[];
  /** ralph.agent.maxLimitedInARow: a loop stops after this many rate-limited runs in a row (0: never). */
  readonly agentMaxLimitedInARow: number;
  readonly promptTemplateFile: string;
  readonly maxIterations: number;
  readonly noProgressLimit: number;
  readonly failureLimit: number;
  readonly manageBranch: boolean;
  readonly compactThreshold: number;
  readonly keepRecentLines: number;
  readonly autoCompact: boolean;
  /** Finished agent terminals kept open (older ones are closed). */
  readonly keepFinishedTerminals: number;
  /** Agents a parallel run starts at once (≥ 1). */
  readonly parallelMaxAgents: number;
  /** The worktrees' parent folder; empty: `defaultWorktreeRoot` (src/node/parallel/worktrees.ts). Machine scope: never from a workspace. */
  readonly parallelWorktreeRoot: string;
  /** How a finished story's branch joins the feature branch. */
  readonly parallelMerge: MergeMode;
  /** Run after each merge; empty: no check. */
  readonly parallelCheckCommand: string;
  /** Let stories predicted to change the same file run at once. */
  readonly parallelAllowOverlap: boolean;
  /** Minutes an agent of a parallel run may work; 0: no limit. */
  readonly parallelRunTimeoutMinutes: number;
  /** The cost and token caps of a loop (ralph.budget.*). */
  readonly budget: Budget;
}


/** One setting of a folder (or the window), with its declared default when unset or of the wrong type. */
export function readSetting<N extends SettingName>(name: N, folder?: vscode.Uri): SettingValues[N] {
  const { key, default: fallback } = SETTING_KEYS[name];
  const value = vscode.workspace.getConfiguration(SETTINGS_SECTION, folder).get<unknown>(key);
  return (typeof value === typeof fallback ? value : fallback) as SettingValues[N];
}

/** True when a configuration change touches one of the named settings. */
export function affects(e: vscode.ConfigurationChangeEvent, ...names: SettingName[]): boolean {
  return names.some((n) => e.affectsConfiguration(`${SETTINGS_SECTION}.${SETTING_KEYS[n].key}`));
}

/**
 * Every setting of a folder, each checked by the rule the CLI uses too (src/core/settingValues.ts):
 * text trimmed (a blank path is its default), counts whole and at least their floor, a choice one
 * of its values; anything else is the default.
 */
export function readSettings(folder?: vscode.Uri): RalphSettings {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION, folder);
  const v = usableSettings((name) => config.get<unknown>(SETTING_KEYS[name].key));
  return {
    prdPath: v.prdPath,
    progressPath: v.progressPath,
    pinPath: v.pinPath,
    agentPreset: v.agentPreset as AgentPresetId,
    agentCommand: v.agentCommand,
    agentFallback: v.agentFallback,
    agentMaxLimitedInARow: v.agentMaxLimitedInARow,
    promptTemplateFile: v.promptTemplateFile,
    maxIterations: v.maxIterations,
    noProgressLimit: v.noProgressLimit,
    failureLimit: v.failureLimit,
    manageBranch: v.manageBranch,
    compactThreshold: v.compactThreshold,
    keepRecentLines: v.keepRecentLines,
    autoCompact: v.autoCompact,
    keepFinishedTerminals: v.keepFinishedTerminals,
    parallelMaxAgents: v.parallelMaxAgents,
    parallelWorktreeRoot: v.parallelWorktreeRoot,
    parallelMerge: v.parallelMerge as MergeMode,
    parallelCheckCommand: v.parallelCheckCommand,
    parallelAllowOverlap: v.parallelAllowOverlap,
    parallelRunTimeoutMinutes: v.parallelRunTimeoutMinutes,
    budget: budgetOf(v),
  };
}

/** The user's `terminal.integrated.env.<platform>` for this machine (agent terminals get it): PATH may be changed there. */
export function readTerminalEnv(folder?: vscode.Uri): Record<string, unknown> | undefined {
  const os = process.platform === 'win32' ? 'windows' : process.platform === 'darwin' ? 'osx' : 'linux';
  const value = vscode.workspace.getConfiguration('terminal.integrated', folder).get<unknown>(`env.${os}`);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * Writes a setting of a folder where it takes effect: in the narrowest scope that sets it now
 * (the folder's, the workspace's), else in the user's settings. Used for what belongs to the
 * machine rather than the project (which agent is installed): a new `.vscode/settings.json` would
 * also be an uncommitted file in the repository, which an agent's `git add -A` commits.
 */
export async function writeSetting<N extends SettingName>(name: N, value: SettingValues[N], folder: vscode.Uri): Promise<vscode.ConfigurationTarget> {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION, folder);
  const key = SETTING_KEYS[name].key;
  const set = config.inspect(key);
  const target =
    set?.workspaceFolderValue !== undefined
      ? vscode.ConfigurationTarget.WorkspaceFolder
      : set?.workspaceValue !== undefined
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
  await config.update(key, value, target);
  return target;
}
