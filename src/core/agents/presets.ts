/**
 * Agent presets: the agents Ralph Workbench knows (their default command lines per shell, the
 * program to look for, where to get it), and `resolveAgentCommand`, which turns the settings
 * `ralph.agent.preset` / `ralph.agent.command` into the template to run. The template language is
 * in template.ts, shells and executable lookup in shell.ts (both re-exported here).
 */
import { commandExecutable, type PathLookup, resolveExecutable } from './shell';
import { checkTemplate, COMMAND_SETTING, type ShellKind, templateWarnings } from './template';

export * from './shell';
export * from './template';

export type AgentPresetId = 'claude' | 'amp' | 'codex' | 'copilot' | 'ralphSh' | 'custom';

export interface AgentPreset {
  readonly id: AgentPresetId;
  readonly label: string;
  /** Default command line for POSIX shells, fish and cmd.exe (which all understand `< file`). */
  readonly template: string;
  /** Default command line for PowerShell, which has no `<` input redirection. */
  readonly powershellTemplate: string;
  /** The program the default template starts, for the "missing executable" check (undefined: nothing to check). */
  readonly executable?: string;
  /** Where to get it, shown when it is missing. */
  readonly install?: string;
  /** The agent's installation guide (a link offered when no agent is found). */
  readonly installUrl?: string;
  /** One paragraph for the settings UI and the README. */
  readonly docs: string;
}

export const PRESET_SETTING = 'ralph.agent.preset';

const psPipe = (cmd: string): string => `Get-Content -Raw -LiteralPath \${promptFile} | ${cmd}`;

/**
 * An agent whose JSON stream goes through the bundled render-stream: the terminal shows it readably,
 * ending with the run's `ralph-receipt:` line (its cost and tokens), and the filter's exit status
 * says whether the stream ended with a result that was not an error (a pipe's status is its last
 * command's, so the agent's own would be lost).
 */
const rendered = (agent: string, id: string): { template: string; powershellTemplate: string } => ({
  template: `${agent} < \${promptFile} | \${renderStream} --agent ${id}`,
  powershellTemplate: `${psPipe(agent)} | \${renderStream} --agent ${id}`,
});

export const AGENT_PRESETS: readonly AgentPreset[] = [
  {
    id: 'claude',
    label: 'Claude Code',
    ...rendered('claude --dangerously-skip-permissions --print --output-format stream-json --verbose', 'claude'),
    executable: 'claude',
    install: 'npm install -g @anthropic-ai/claude-code',
    installUrl: 'https://docs.anthropic.com/en/docs/claude-code/setup',
    docs:
      'Claude Code in print mode, reading the prompt on stdin, with permission prompts skipped (as in the original ralph.sh). ' +
      'Its stream-json output goes through the bundled render-stream (`${renderStream}`): readable in the terminal, and the run records what it cost. ' +
      'It runs with your full user rights: use it in a disposable checkout or container.',
  },
  {
    id: 'amp',
    label: 'Amp',
    // The same arguments as Amp's own SDK (@sourcegraph/amp-sdk, buildCliArgs): `--execute
    // --stream-json [--dangerously-allow-all]`, the prompt written to stdin and stdin closed.
    ...rendered('amp --execute --stream-json --dangerously-allow-all', 'amp'),
    executable: 'amp',
    install: 'npm install -g @sourcegraph/amp',
    installUrl: 'https://ampcode.com/manual',
    docs:
      'Amp in execute mode (`--execute`): the prompt arrives on stdin, every tool is allowed (as in the original ralph.sh). Its `--stream-json` ' +
      'output goes through the bundled render-stream (`${renderStream}`): readable in the terminal, and the run records its turns.',
  },
  {
    id: 'codex',
    label: 'Codex CLI',
    ...rendered('codex exec --json --dangerously-bypass-approvals-and-sandbox -', 'codex'),
    executable: 'codex',
    install: 'npm install -g @openai/codex',
    installUrl: 'https://github.com/openai/codex',
    docs:
      'Codex non-interactive mode (`codex exec`, `-` reads the prompt from stdin); its `--json` events go through the bundled render-stream ' +
      '(`${renderStream}`): readable in the terminal, and the run records its tokens. Its `--sandbox workspace-write` mode keeps `.git` ' +
      'read-only, so an iteration could not make its `feat:` commit; the preset therefore bypasses the sandbox like the Claude and Amp ' +
      'presets skip their permission prompts. Override the command with `--sandbox workspace-write` if you prefer to commit yourself.',
  },
  {
    id: 'copilot',
    label: 'GitHub Copilot CLI',
    template: 'copilot --allow-all-tools < ${promptFile}',
    powershellTemplate: psPipe('copilot --allow-all-tools'),
    executable: 'copilot',
    install: 'npm install -g @github/copilot',
    installUrl: 'https://github.com/github/copilot-cli',
    docs:
      'Copilot CLI reading the prompt piped on stdin (non-interactive), with every tool allowed. Older versions that only take `-p` can use ' +
      '`copilot -p "$(cat ${promptFile})" --allow-all-tools` (POSIX shells): the shell reads the file at run time, so the prompt text ' +
      'is never part of the command line Ralph Workbench writes.',
  },
  {
    id: 'ralphSh',
    label: "The workspace's ralph.sh",
    template: 'bash ./ralph.sh 1',
    powershellTemplate: 'bash ./ralph.sh 1',
    executable: 'bash',
    docs:
      "Runs the workspace's own loop script (`ralph.sh` at the root, or `scripts/ralph/ralph.sh`) for one iteration (`1` is its " +
      'max-iterations argument). The script uses its own prompt and picks its own story; Ralph Workbench still records the run and applies the stop rules.',
  },
  {
    id: 'custom',
    label: 'Custom command',
    template: '',
    powershellTemplate: '',
    docs:
      'Your own command line in `ralph.agent.command`, with `${promptFile}`, `${storyId}` and `${workspaceFolder}` as placeholders, and ' +
      '`${renderStream}` to pipe a JSON stream through the bundled render-stream (`… | ${renderStream} --agent codex`).',
  },
];

export function getPreset(id: string): AgentPreset | undefined {
  return AGENT_PRESETS.find((p) => p.id === id);
}

/** The default template of a preset for a shell (empty for `custom`). */
export function presetTemplate(preset: AgentPreset, shell: ShellKind): string {
  return shell === 'powershell' ? preset.powershellTemplate : preset.template;
}

/** Where a workspace's loop script may live, in the order they are tried. */
export const RALPH_SCRIPTS: readonly string[] = ['ralph.sh', 'scripts/ralph/ralph.sh'];

/** Where the workspace's loop script lives: `./ralph.sh` first, then `scripts/ralph/ralph.sh`; undefined when neither exists. */
export function findRalphScript(exists: (relativePath: string) => boolean): string | undefined {
  return RALPH_SCRIPTS.find((p) => exists(p));
}

/** The `ralphSh` preset's command line for the script that exists, or undefined when there is none. */
export function ralphShTemplate(exists: (relativePath: string) => boolean): string | undefined {
  const script = findRalphScript(exists);
  return script === undefined ? undefined : `bash ./${script} 1`;
}

/** The message for a missing agent executable: names the program, how to get it, and the settings to change. */
export function missingExecutableMessage(executable: string, presetId: string): string {
  const preset = getPreset(presetId);
  const what = preset && preset.id !== 'custom' ? `${preset.label} ("${executable}")` : `"${executable}"`;
  const install = preset?.install ? ` Install it (${preset.install}),` : ' Install it,';
  return (
    `The agent program ${what} was not found on PATH.${install} or choose another agent in the setting ${PRESET_SETTING}` +
    ` (now "${presetId}"), or set the full command line in ${COMMAND_SETTING}.`
  );
}

/** A preset whose program was found, and where (for the agent chooser). */
export interface FoundPreset {
  readonly preset: AgentPreset;
  /** The full path of its program. */
  readonly path: string;
}

/**
 * The presets that could run here: their program is on PATH (`ralphSh` also needs the workspace's
 * script; `custom` has no program of its own), in the order of AGENT_PRESETS.
 */
export function presetsOnPath(lookup: PathLookup, exists: (relativePath: string) => boolean): FoundPreset[] {
  const found: FoundPreset[] = [];
  for (const preset of AGENT_PRESETS) {
    if (!preset.executable || (preset.id === 'ralphSh' && !findRalphScript(exists))) {
      continue;
    }
    const path = resolveExecutable(preset.executable, lookup);
    if (path) {
      found.push({ preset, path });
    }
  }
  return found;
}

/** The programs of the presets an agent chooser looks for (`bash` only where there is a ralph.sh). */
export function presetPrograms(exists: (relativePath: string) => boolean): string[] {
  return AGENT_PRESETS.filter((p) => p.executable && (p.id !== 'ralphSh' || findRalphScript(exists))).map((p) => p.executable as string);
}

/** When the configured agent is missing and no other preset's program is found either. */
export function noAgentFoundMessage(configured: AgentPreset, lookedFor: readonly string[]): string {
  const install = configured.install ? ` Install ${configured.label} (${configured.install}),` : ' Install an agent,';
  return (
    `No agent program was found on PATH: looked for ${lookedFor.map((p) => `"${p}"`).join(', ')}.${install}` +
    ` or set your own command line in ${COMMAND_SETTING}.`
  );
}

export interface AgentCommandSettings {
  /** `ralph.agent.preset` (default "claude"). */
  readonly presetId?: string;
  /** `ralph.agent.command`: when not blank it overrides the preset's template. */
  readonly command?: string;
  readonly shell: ShellKind;
  /** Whether a workspace-relative file exists (to find ralph.sh). */
  readonly exists: (relativePath: string) => boolean;
}

export type AgentCommand =
  | {
      readonly ok: true;
      readonly presetId: AgentPresetId;
      /** The template to expand with expandTemplate. */
      readonly template: string;
      /** The program to look up on PATH before running (undefined: cannot be known). */
      readonly executable?: string;
      readonly warnings: readonly string[];
    }
  | { readonly ok: false; readonly message: string; /** The setting to change. */ readonly setting: typeof PRESET_SETTING | typeof COMMAND_SETTING };

/** The command template the settings select, or a message that names the setting to change. */
export function resolveAgentCommand(s: AgentCommandSettings): AgentCommand {
  const presetId = s.presetId?.trim() || 'claude';
  const preset = getPreset(presetId);
  if (!preset) {
    return {
      ok: false,
      message: `Unknown agent preset "${presetId}" in the setting ${PRESET_SETTING}. Choose one of ${AGENT_PRESETS.map((p) => p.id).join(', ')}.`,
      setting: PRESET_SETTING,
    };
  }
  const custom = s.command?.trim() ?? '';
  let template: string;
  let executable: string | undefined;
  if (custom !== '') {
    template = custom;
    executable = commandExecutable(afterInputPipe(custom));
  } else if (preset.id === 'custom') {
    return {
      ok: false,
      message: `The agent preset is "custom" but the setting ${COMMAND_SETTING} is empty. Set it to your agent's command line, e.g. my-agent < \${promptFile}.`,
      setting: COMMAND_SETTING,
    };
  } else if (preset.id === 'ralphSh') {
    const t = ralphShTemplate(s.exists);
    if (t === undefined) {
      return {
        ok: false,
        message: `The agent preset is "ralphSh" but there is no ralph.sh in this workspace (looked for ./ralph.sh and scripts/ralph/ralph.sh). Add the script, or choose another agent in ${PRESET_SETTING}.`,
        setting: PRESET_SETTING,
      };
    }
    template = t;
    executable = preset.executable;
  } else {
    template = presetTemplate(preset, s.shell);
    executable = preset.executable;
  }
  const check = checkTemplate(template, s.shell);
  if (check.error) {
    return { ok: false, message: check.error, setting: custom !== '' ? COMMAND_SETTING : PRESET_SETTING };
  }
  return { ok: true, presetId: preset.id, template, executable, warnings: templateWarnings(template, s.shell, custom !== '' ? 'custom' : preset.id) };
}

/** For `Get-Content … | agent …` (PowerShell) and `cat … | agent …` the program that matters is after the pipe. */
function afterInputPipe(command: string): string {
  // The same as /^\s*(…)\b[^|]*\|\s*(.*)$/i without its backtracking \s*(.*) pair: the rest
  // after the pipe, leading white space removed, when it is one line.
  const m = /^\s*(?:Get-Content|gc|cat|type)\b[^|]*\|/i.exec(command);
  if (!m) {
    return command;
  }
  const rest = command.slice(m[0].length).trimStart();
  return /[\n\r\u2028\u2029]/.test(rest) ? command : rest;
}
