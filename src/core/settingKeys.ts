/**
 * Every setting of the extension, declared once: the name the code uses, its key under `ralph.`
 * (as in package.json's `contributes.configuration`), its default, and the rules a value must meet
 * to be used (`min`, `integer`, `oneOf`; `scope: 'machine'` for what a workspace may not set).
 * src/services/settings.ts reads them in VS Code, src/node/workspaceSettings.ts from a folder's
 * `.vscode/settings.json` for the CLI, both through src/core/settingValues.ts; a unit test holds
 * this table equal to package.json.
 */
export const SETTINGS_SECTION = 'ralph';

export interface SettingEntry {
  readonly key: string;
  readonly default: string | number | boolean | object;
  /** A number below this is not used (the default is). */
  readonly min?: number;
  /** A number is cut to a whole number (as the code always did with counts). */
  readonly integer?: boolean;
  /** The only texts allowed (package.json's `enum`). */
  readonly oneOf?: readonly string[];
  /** `machine`: only the user's own settings may set it, never a workspace's (package.json's `scope`). */
  readonly scope?: 'machine';
}

export const SETTING_KEYS = {
  prdPath: { key: 'prdPath', default: 'prd.json' },
  progressPath: { key: 'progressPath', default: 'progress.txt' },
  pinPath: { key: 'pinPath', default: 'specs/INDEX.md' },
  agentPreset: { key: 'agent.preset', default: 'claude' },
  agentCommand: { key: 'agent.command', default: '' },
  // Issue 21: while the agent is rate-limited, the next run uses the first of these presets that is not.
  agentFallback: { key: 'agent.fallback', default: [] as readonly string[] },
  // Issue 21: a loop stops after this many rate-limited runs in a row (every retry is a paid run); 0: never.
  agentMaxLimitedInARow: { key: 'agent.maxLimitedInARow', default: 5, min: 0, integer: true },
  promptTemplateFile: { key: 'prompt.templateFile', default: '' },
  // The floors are what the code has always accepted (package.json's minimum may be higher: the
  // Settings UI warns, the run still uses the value).
  maxIterations: { key: 'loop.maxIterations', default: 10, min: 1, integer: true },
  noProgressLimit: { key: 'loop.noProgressLimit', default: 2, min: 1, integer: true },
  failureLimit: { key: 'loop.failureLimit', default: 2, min: 1, integer: true },
  // 0: no cap. What runs reported spending, in US dollars or tokens (core/insights/budget.ts).
  budgetMaxCostPerLoop: { key: 'budget.maxCostPerLoop', default: 0, min: 0 },
  budgetMaxCostPerStory: { key: 'budget.maxCostPerStory', default: 0, min: 0 },
  budgetMaxTokensPerLoop: { key: 'budget.maxTokensPerLoop', default: 0, min: 0, integer: true },
  manageBranch: { key: 'git.manageBranch', default: true },
  compactThreshold: { key: 'progress.compactThreshold', default: 400, min: 1, integer: true },
  keepRecentLines: { key: 'progress.keepRecentLines', default: 200, min: 1, integer: true },
  autoCompact: { key: 'progress.autoCompact', default: false },
  keepFinishedTerminals: { key: 'terminals.keepFinished', default: 3, min: 0, integer: true },
  parallelMaxAgents: { key: 'parallel.maxAgents', default: 3, min: 1, integer: true },
  // Machine scope: a repository's .vscode/settings.json must not choose where worktrees are written.
  parallelWorktreeRoot: { key: 'parallel.worktreeRoot', default: '', scope: 'machine' },
  parallelMerge: { key: 'parallel.merge', default: 'merge', oneOf: ['merge', 'rebase'] },
  parallelCheckCommand: { key: 'parallel.checkCommand', default: '' },
  parallelAllowOverlap: { key: 'parallel.allowOverlap', default: false },
  parallelRunTimeoutMinutes: { key: 'parallel.runTimeoutMinutes', default: 60, min: 0 },
  githubRepository: { key: 'github.repository', default: '' },
  githubStandInUrl: { key: 'github.standInUrl', default: '' },
  githubWriteIntervalMs: { key: 'github.writeIntervalMs', default: 1000, min: 0 },
  githubFollowSeconds: { key: 'github.followSeconds', default: 60, min: 10 },
  githubTrustedAuthors: { key: 'github.trustedAuthors', default: ['OWNER', 'MEMBER', 'COLLABORATOR'] as readonly string[] },
  githubArtifactFolders: { key: 'github.artifactFolders', default: [] as readonly string[] },
  githubAgentAssignee: { key: 'github.agentAssignee', default: '' },
  githubIssueFilter: { key: 'github.issueFilter', default: {} as { readonly labels?: string; readonly assignee?: string; readonly milestone?: string } },
} as const satisfies Record<string, SettingEntry>;

export type SettingName = keyof typeof SETTING_KEYS;

type Widen<T> = T extends string ? string : T extends number ? number : T extends boolean ? boolean : T;
export type SettingValues = { readonly [N in SettingName]: Widen<(typeof SETTING_KEYS)[N]['default']> };

/** The full id of a setting, e.g. `ralph.agent.command`. */
export function settingId(name: SettingName): string {
  return `${SETTINGS_SECTION}.${SETTING_KEYS[name].key}`;
}

/** A setting's entry with its rules, as one type (the table's own type is a union of literals). */
export function settingEntry(name: SettingName): SettingEntry {
  return SETTING_KEYS[name];
}
