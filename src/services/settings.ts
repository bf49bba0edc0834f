/** Typed access to the extension's settings of a workspace folder. */
import * as vscode from 'vscode';
import type { AgentPresetId } from '../core/agents/presets';

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
}

export function readSettings(folder?: vscode.Uri): RalphSettings {
  const c = vscode.workspace.getConfiguration('ralph', folder);
  return {
    prdPath: c.get<string>('prdPath', 'prd.json') || 'prd.json',
    progressPath: c.get<string>('progressPath', 'progress.txt') || 'progress.txt',
    pinPath: c.get<string>('pinPath', 'specs/INDEX.md') || 'specs/INDEX.md',
    agentPreset: c.get<AgentPresetId>('agent.preset', 'claude'),
    agentCommand: c.get<string>('agent.command', '').trim(),
    promptTemplateFile: c.get<string>('prompt.templateFile', '').trim(),
    maxIterations: c.get<number>('loop.maxIterations', 10),
    noProgressLimit: c.get<number>('loop.noProgressLimit', 2),
    failureLimit: c.get<number>('loop.failureLimit', 2),
    manageBranch: c.get<boolean>('git.manageBranch', true),
  };
}
