/**
 * The one place the extension reads its settings. Every key is declared once in SETTING_KEYS (its
 * name under `ralph.` and its default, the same as in package.json, which a unit test checks);
 * every read goes through `readSettings` (a typed snapshot for a folder) or `readSetting` (one
 * key), and `affects` tells whether a configuration change touches some keys.
 */
import * as vscode from 'vscode';
import type { AgentPresetId } from '../core/agents/presets';
import { SETTING_KEYS, type SettingName, SETTINGS_SECTION, type SettingValues } from '../core/settingKeys';

export { SETTING_KEYS, type SettingName, SETTINGS_SECTION } from '../core/settingKeys';

export interface RalphSettings {
  readonly prdPath: string;
  readonly progressPath: string;
  readonly pinPath: string;
  readonly agentPreset: AgentPresetId;
  readonly agentCommand: string;
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

export function readSettings(folder?: vscode.Uri): RalphSettings {
  const get = <N extends SettingName>(name: N): SettingValues[N] => readSetting(name, folder);
  const text = (name: 'prdPath' | 'progressPath' | 'pinPath'): string => get(name).trim() || SETTING_KEYS[name].default;
  const count = (name: 'maxIterations' | 'noProgressLimit' | 'failureLimit' | 'compactThreshold' | 'keepRecentLines' | 'keepFinishedTerminals', min: number): number => {
    const v = get(name);
    return Number.isFinite(v) && v >= min ? Math.floor(v) : SETTING_KEYS[name].default;
  };
  return {
    prdPath: text('prdPath'),
    progressPath: text('progressPath'),
    pinPath: text('pinPath'),
    agentPreset: get('agentPreset') as AgentPresetId,
    agentCommand: get('agentCommand').trim(),
    promptTemplateFile: get('promptTemplateFile').trim(),
    maxIterations: count('maxIterations', 1),
    noProgressLimit: count('noProgressLimit', 1),
    failureLimit: count('failureLimit', 1),
    manageBranch: get('manageBranch'),
    compactThreshold: count('compactThreshold', 1),
    keepRecentLines: count('keepRecentLines', 1),
    autoCompact: get('autoCompact'),
    keepFinishedTerminals: count('keepFinishedTerminals', 0),
  };
}
