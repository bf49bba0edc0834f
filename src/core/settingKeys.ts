/**
 * Every setting of the extension, declared once: the name the code uses, its key under `ralph.`
 * (as in package.json's `contributes.configuration`) and its default. src/services/settings.ts
 * reads them; a unit test holds this table equal to package.json.
 */
export const SETTINGS_SECTION = 'ralph';

export const SETTING_KEYS = {
  prdPath: { key: 'prdPath', default: 'prd.json' },
  progressPath: { key: 'progressPath', default: 'progress.txt' },
  pinPath: { key: 'pinPath', default: 'specs/INDEX.md' },
  agentPreset: { key: 'agent.preset', default: 'claude' },
  agentCommand: { key: 'agent.command', default: '' },
  promptTemplateFile: { key: 'prompt.templateFile', default: '' },
  maxIterations: { key: 'loop.maxIterations', default: 10 },
  noProgressLimit: { key: 'loop.noProgressLimit', default: 2 },
  failureLimit: { key: 'loop.failureLimit', default: 2 },
  manageBranch: { key: 'git.manageBranch', default: true },
  compactThreshold: { key: 'progress.compactThreshold', default: 400 },
  keepRecentLines: { key: 'progress.keepRecentLines', default: 200 },
  autoCompact: { key: 'progress.autoCompact', default: false },
  keepFinishedTerminals: { key: 'terminals.keepFinished', default: 3 },
  githubRepository: { key: 'github.repository', default: '' },
  githubStandInUrl: { key: 'github.standInUrl', default: '' },
  githubTrustedAuthors: { key: 'github.trustedAuthors', default: ['OWNER', 'MEMBER', 'COLLABORATOR'] as readonly string[] },
  githubArtifactFolders: { key: 'github.artifactFolders', default: [] as readonly string[] },
  githubIssueFilter: { key: 'github.issueFilter', default: {} as { readonly labels?: string; readonly assignee?: string; readonly milestone?: string } },
} as const satisfies Record<string, { key: string; default: string | number | boolean | object }>;

export type SettingName = keyof typeof SETTING_KEYS;

type Widen<T> = T extends string ? string : T extends number ? number : T extends boolean ? boolean : T;
export type SettingValues = { readonly [N in SettingName]: Widen<(typeof SETTING_KEYS)[N]['default']> };

/** The full id of a setting, e.g. `ralph.agent.command`. */
export function settingId(name: SettingName): string {
  return `${SETTINGS_SECTION}.${SETTING_KEYS[name].key}`;
}
