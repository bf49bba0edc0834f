/**
 * Agent presets and the command-line template language of `ralph.agent.command`.
 *
 * A template is a shell command line written for the terminal's shell, with three placeholders:
 * `${promptFile}`, `${storyId}` and `${workspaceFolder}`. Each is replaced by its value QUOTED for
 * that shell, so a story id such as `US-1; rm -rf ~` or `a/b$(x)` reaches the agent as one inert
 * word. Story titles and descriptions never enter a command line: the agent reads them from the
 * prompt file. A placeholder written inside quotes (`"${promptFile}"`, `'${promptFile}'`) is
 * replaced together with its quotes, so a user's habit of quoting does not double-quote.
 * Any other `${…}` is an error; shell variables are written without braces (`$HOME`, `$env:HOME`).
 */

export type ShellKind = 'posix' | 'fish' | 'powershell' | 'cmd';
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
  /** One paragraph for the settings UI and the README. */
  readonly docs: string;
}

export const COMMAND_SETTING = 'ralph.agent.command';
export const PRESET_SETTING = 'ralph.agent.preset';

export const PLACEHOLDERS = ['promptFile', 'storyId', 'workspaceFolder'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
export type TemplateVars = Readonly<Record<Placeholder, string>>;

const psPipe = (cmd: string): string => `Get-Content -Raw -LiteralPath \${promptFile} | ${cmd}`;

export const AGENT_PRESETS: readonly AgentPreset[] = [
  {
    id: 'claude',
    label: 'Claude Code',
    template: 'claude --dangerously-skip-permissions --print < ${promptFile}',
    powershellTemplate: psPipe('claude --dangerously-skip-permissions --print'),
    executable: 'claude',
    install: 'npm install -g @anthropic-ai/claude-code',
    docs:
      'Claude Code in print mode, reading the prompt on stdin, with permission prompts skipped (as in the original ralph.sh). ' +
      'It runs with your full user rights: use it in a disposable checkout or container.',
  },
  {
    id: 'amp',
    label: 'Amp',
    template: 'amp --dangerously-allow-all < ${promptFile}',
    powershellTemplate: psPipe('amp --dangerously-allow-all'),
    executable: 'amp',
    install: 'npm install -g @sourcegraph/amp',
    docs: 'Amp in execute mode: the prompt arrives on stdin (not a terminal), every tool is allowed. Same template as the original ralph.sh.',
  },
  {
    id: 'codex',
    label: 'Codex CLI',
    template: 'codex exec --dangerously-bypass-approvals-and-sandbox - < ${promptFile}',
    powershellTemplate: psPipe('codex exec --dangerously-bypass-approvals-and-sandbox -'),
    executable: 'codex',
    install: 'npm install -g @openai/codex',
    docs:
      'Codex non-interactive mode (`codex exec`, `-` reads the prompt from stdin). Its `--sandbox workspace-write` mode keeps `.git` ' +
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
    docs: 'Your own command line in `ralph.agent.command`, with `${promptFile}`, `${storyId}` and `${workspaceFolder}` as placeholders.',
  },
];

export function getPreset(id: string): AgentPreset | undefined {
  return AGENT_PRESETS.find((p) => p.id === id);
}

/** The default template of a preset for a shell (empty for `custom`). */
export function presetTemplate(preset: AgentPreset, shell: ShellKind): string {
  return shell === 'powershell' ? preset.powershellTemplate : preset.template;
}

/** Where the workspace's loop script lives: `./ralph.sh` first, then `scripts/ralph/ralph.sh`; undefined when neither exists. */
export function findRalphScript(exists: (relativePath: string) => boolean): string | undefined {
  return ['ralph.sh', 'scripts/ralph/ralph.sh'].find((p) => exists(p));
}

/** The `ralphSh` preset's command line for the script that exists, or undefined when there is none. */
export function ralphShTemplate(exists: (relativePath: string) => boolean): string | undefined {
  const script = findRalphScript(exists);
  return script === undefined ? undefined : `bash ./${script} 1`;
}

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

type Segment = string | { readonly name: string };

interface Scan {
  readonly segments: readonly Segment[];
  readonly errors: readonly string[];
}

const knownList = PLACEHOLDERS.map((p) => `\${${p}}`).join(', ');

/**
 * Splits a template into literal text and placeholders, following the shell's quoting so that a
 * placeholder inside a quoted string (where our quoting would be wrong or unsafe) is reported, and
 * an escaped `\${…}` (POSIX, fish), `` `${…} `` (PowerShell) or `^${…}` (cmd) stays literal.
 */
function scanTemplate(template: string, shell: ShellKind): Scan {
  const segments: Segment[] = [];
  const errors: string[] = [];
  const escape = shell === 'powershell' ? '`' : shell === 'cmd' ? '^' : '\\';
  const quotes = shell === 'cmd' ? '"' : `"'`;
  let literal = '';
  let quote: string | undefined;
  let i = 0;
  const placeholderAt = (at: number): { name: string; end: number } | undefined => {
    if (!template.startsWith('${', at)) {
      return undefined;
    }
    const close = template.indexOf('}', at + 2);
    if (close < 0) {
      return { name: '', end: -1 };
    }
    return { name: template.slice(at + 2, close), end: close + 1 };
  };
  const take = (ph: { name: string; end: number }): void => {
    if (!(PLACEHOLDERS as readonly string[]).includes(ph.name)) {
      errors.push(unknownPlaceholder(ph.name));
    }
    if (literal !== '') {
      segments.push(literal);
      literal = '';
    }
    segments.push({ name: ph.name });
  };
  while (i < template.length) {
    const c = template[i];
    if (quote === undefined) {
      if (c === escape && i + 1 < template.length) {
        literal += c + template[i + 1];
        i += 2;
        continue;
      }
      if (quotes.includes(c)) {
        const ph = placeholderAt(i + 1);
        if (ph && ph.end > 0 && template[ph.end] === c) {
          // "${promptFile}": the quoted value replaces the quotes too.
          take(ph);
          i = ph.end + 1;
          continue;
        }
        quote = c;
        literal += c;
        i++;
        continue;
      }
      const ph = placeholderAt(i);
      if (ph) {
        if (ph.end < 0) {
          errors.push('"${" without a closing "}"');
          literal += template.slice(i);
          break;
        }
        take(ph);
        i = ph.end;
        continue;
      }
      literal += c;
      i++;
      continue;
    }
    // Inside quotes.
    const escapesHere = (quote === '"' && shell !== 'cmd' && c === (shell === 'powershell' ? '`' : '\\')) || (quote === "'" && shell === 'fish' && c === '\\');
    if (escapesHere && i + 1 < template.length) {
      literal += c + template[i + 1];
      i += 2;
      continue;
    }
    if (c === quote) {
      quote = undefined;
      literal += c;
      i++;
      continue;
    }
    const ph = placeholderAt(i);
    if (ph && ph.end < 0) {
      errors.push('"${" without a closing "}"');
    } else if (ph && (PLACEHOLDERS as readonly string[]).includes(ph.name)) {
      errors.push(
        `\${${ph.name}} is inside a quoted string; write it as a word of its own (Ralph Workbench quotes the value itself), e.g. claude --print < \${promptFile}`,
      );
    } else if (ph) {
      errors.push(unknownPlaceholder(ph.name));
    }
    literal += c;
    i++;
  }
  if (literal !== '') {
    segments.push(literal);
  }
  return { segments, errors };
}

function unknownPlaceholder(name: string): string {
  const hint = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name.startsWith('env:') ? ` (for a shell variable write $${name} without braces)` : '';
  return `unknown placeholder "\${${name}}"${hint}`;
}

function templateError(errors: readonly string[]): string {
  return `The agent command in the setting ${COMMAND_SETTING} is not usable: ${errors.join('; ')}. Placeholders are ${knownList}.`;
}

/** The placeholders a template uses, and a message naming the setting when it has unknown or misplaced ones. */
export function checkTemplate(template: string, shell: ShellKind = 'posix'): { used: Placeholder[]; error?: string } {
  const scan = scanTemplate(template, shell);
  const used: Placeholder[] = [];
  for (const s of scan.segments) {
    if (typeof s !== 'string' && (PLACEHOLDERS as readonly string[]).includes(s.name) && !used.includes(s.name as Placeholder)) {
      used.push(s.name as Placeholder);
    }
  }
  return scan.errors.length > 0 ? { used, error: templateError(scan.errors) } : { used };
}

/**
 * Substitutes the placeholders with values quoted for the shell. Throws TemplateError (whose
 * message names ${COMMAND_SETTING}) for an unknown or misplaced placeholder or a value the shell
 * cannot carry safely.
 */
export function expandTemplate(template: string, vars: TemplateVars, shell: ShellKind): string {
  const scan = scanTemplate(template, shell);
  if (scan.errors.length > 0) {
    throw new TemplateError(templateError(scan.errors));
  }
  let out = '';
  for (const s of scan.segments) {
    if (typeof s === 'string') {
      out += s;
      continue;
    }
    const value = vars[s.name as Placeholder];
    if (typeof value !== 'string') {
      throw new TemplateError(`No value for \${${s.name}} in the agent command (${COMMAND_SETTING}).`);
    }
    try {
      out += quoteArg(value, shell);
    } catch (e) {
      throw new TemplateError(`The value of \${${s.name}} ${(e as Error).message}`);
    }
  }
  return out;
}

/** Things that will probably go wrong with a template in a shell (not errors: the user may know better). */
export function templateWarnings(template: string, shell: ShellKind, presetId: AgentPresetId = 'custom'): string[] {
  const out: string[] = [];
  if (shell === 'powershell' && /(^|[^<])<(?!<)\s*["']?\$\{promptFile\}/.test(template)) {
    out.push(
      `PowerShell has no "<" input redirection: the agent command in ${COMMAND_SETTING} will fail there. ` +
        'Pipe the file instead: Get-Content -Raw -LiteralPath ${promptFile} | <agent command>.',
    );
  }
  if (presetId !== 'ralphSh' && template.trim() !== '' && !checkTemplate(template, shell).used.includes('promptFile')) {
    out.push(`The agent command in ${COMMAND_SETTING} does not use \${promptFile}: the agent will not receive the story's prompt.`);
  }
  return out;
}

// Words that need no quotes in POSIX shells and fish (no globbing, expansion, or word splitting).
const posixSafe = /^[A-Za-z0-9_./:+,-]+$/;
const controlChars = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** One shell word whose value is exactly `value`. Throws for values the shell cannot carry. */
export function quoteArg(value: string, shell: ShellKind): string {
  if (controlChars.test(value)) {
    throw new Error(`contains a control character (such as a line break) and cannot be put on a command line: ${JSON.stringify(value)}`);
  }
  switch (shell) {
    case 'posix':
      if (value !== '' && posixSafe.test(value) && !value.startsWith('-')) {
        return value;
      }
      return `'${value.replace(/'/g, `'\\''`)}'`;
    case 'fish':
      if (value !== '' && posixSafe.test(value) && !value.startsWith('-')) {
        return value;
      }
      // In fish single quotes, backslash escapes only \ and '.
      return `'${value.replace(/[\\']/g, '\\$&')}'`;
    case 'powershell':
      // PowerShell also treats the typographic single quotes as quote characters; doubling escapes all of them.
      return `'${value.replace(/['\u2018\u2019\u201a\u201b]/g, '$&$&')}'`;
    case 'cmd': {
      // Inside double quotes cmd.exe still expands %VAR% (and !VAR! with delayed expansion), and a
      // double quote cannot be escaped: refuse those rather than guess.
      const bad = value.match(/["%!]/);
      if (bad) {
        throw new Error(`contains ${bad[0]}, which cmd.exe cannot take literally: ${JSON.stringify(value)}. Use PowerShell or a POSIX shell as the terminal shell, or rename it.`);
      }
      // Backslashes before the closing quote would escape it for the program's argument parser.
      return `"${value.replace(/(\\+)$/, '$1$1')}"`;
    }
  }
}

/**
 * The shell family of a terminal shell executable (e.g. `/bin/zsh`, `C:\\…\\pwsh.exe`), or undefined
 * for shells whose quoting is not supported (csh/tcsh expand `!` even in single quotes; nushell,
 * xonsh, elvish): the caller should then start the agent through `/bin/sh`.
 */
export function shellKindOf(shellPath: string): ShellKind | undefined {
  const base = shellPath.split(/[\\/]/).pop()?.toLowerCase().replace(/\.exe$/, '') ?? '';
  if (['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'busybox', 'yash'].includes(base)) {
    return 'posix';
  }
  if (base === 'fish') {
    return 'fish';
  }
  if (base === 'pwsh' || base === 'powershell' || base === 'pwsh-preview') {
    return 'powershell';
  }
  if (base === 'cmd') {
    return 'cmd';
  }
  return undefined;
}

/**
 * The program a command line starts: its first word, after `VAR=value` assignments (POSIX) and
 * quotes. Undefined when it cannot be known without running a shell (it is a placeholder or an expansion).
 */
export function commandExecutable(command: string): string | undefined {
  const words = splitWords(command);
  let i = 0;
  while (i < words.length && words[i].assignment) {
    i++;
  }
  const w = words[i];
  if (!w || w.text.includes('$') || w.text.includes('`') || w.text === '') {
    return undefined;
  }
  if (w.text === '&' && words[i + 1]) {
    // PowerShell call operator: & 'C:\path\agent.exe' …
    return words[i + 1].text.includes('$') ? undefined : words[i + 1].text;
  }
  return w.text;
}

function splitWords(s: string): { text: string; assignment: boolean }[] {
  const out: { text: string; assignment: boolean }[] = [];
  let i = 0;
  while (i < s.length) {
    while (i < s.length && /\s/.test(s[i])) {
      i++;
    }
    if (i >= s.length) {
      break;
    }
    let text = '';
    const assignment = /^[A-Za-z_][A-Za-z0-9_]*=/.test(s.slice(i));
    while (i < s.length && !/\s/.test(s[i])) {
      const c = s[i];
      if (c === '"' || c === "'") {
        const end = s.indexOf(c, i + 1);
        const stop = end < 0 ? s.length : end;
        text += s.slice(i + 1, stop);
        i = stop + 1;
      } else if (c === ';' || c === '|' || c === '<' || c === '>') {
        break;
      } else {
        text += c;
        i++;
      }
    }
    out.push({ text, assignment });
    if (i < s.length && /[;|<>]/.test(s[i])) {
      break;
    }
  }
  return out;
}

export interface PathLookup {
  /** The PATH environment variable. */
  readonly path: string | undefined;
  /** Windows PATHEXT (default `.COM;.EXE;.BAT;.CMD`). */
  readonly pathExt?: string;
  readonly platform: 'win32' | 'posix';
  /** The folder a relative name (`./ralph.sh`) resolves against. */
  readonly cwd?: string;
  /** True when the path names an existing (executable) file. */
  readonly exists: (path: string) => boolean;
}

/** The full path of an executable, found the way the shell would find it; undefined when missing. */
export function resolveExecutable(name: string, env: PathLookup): string | undefined {
  if (name === '') {
    return undefined;
  }
  const win = env.platform === 'win32';
  const sep = win ? '\\' : '/';
  const exts = win ? (env.pathExt ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((e) => e !== '') : [];
  const candidates = (base: string): string[] => {
    if (!win) {
      return [base];
    }
    const hasExt = exts.some((e) => base.toLowerCase().endsWith(e.toLowerCase()));
    return [...(hasExt ? [base] : []), ...exts.map((e) => base + e.toLowerCase())];
  };
  const hasSlash = win ? /[\\/]/.test(name) : name.includes('/');
  if (hasSlash) {
    const absolute = win ? /^([A-Za-z]:)?[\\/]/.test(name) : name.startsWith('/');
    const full = absolute || env.cwd === undefined ? name : joinPath(env.cwd, name, sep);
    return candidates(full).find((c) => env.exists(c));
  }
  const dirs = (env.path ?? '').split(win ? ';' : ':');
  for (let dir of dirs) {
    dir = dir.trim().replace(/^"(.*)"$/, '$1');
    if (dir === '') {
      continue;
    }
    const found = candidates(joinPath(dir, name, sep)).find((c) => env.exists(c));
    if (found) {
      return found;
    }
  }
  return undefined;
}

function joinPath(dir: string, name: string, sep: string): string {
  const rel = name.replace(/^\.[\\/]/, '');
  return /[\\/]$/.test(dir) ? dir + rel : dir + sep + rel;
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
  | { readonly ok: false; readonly message: string };

/** The command template the settings select, or a message that names the setting to change. */
export function resolveAgentCommand(s: AgentCommandSettings): AgentCommand {
  const presetId = s.presetId?.trim() || 'claude';
  const preset = getPreset(presetId);
  if (!preset) {
    return {
      ok: false,
      message: `Unknown agent preset "${presetId}" in the setting ${PRESET_SETTING}. Choose one of ${AGENT_PRESETS.map((p) => p.id).join(', ')}.`,
    };
  }
  const custom = s.command?.trim() ?? '';
  let template: string;
  let executable: string | undefined;
  if (custom !== '') {
    template = custom;
    executable = commandExecutable(afterInputPipe(custom));
  } else if (preset.id === 'custom') {
    return { ok: false, message: `The agent preset is "custom" but the setting ${COMMAND_SETTING} is empty. Set it to your agent's command line, e.g. my-agent < \${promptFile}.` };
  } else if (preset.id === 'ralphSh') {
    const t = ralphShTemplate(s.exists);
    if (t === undefined) {
      return {
        ok: false,
        message: `The agent preset is "ralphSh" but there is no ralph.sh in this workspace (looked for ./ralph.sh and scripts/ralph/ralph.sh). Add the script, or choose another agent in ${PRESET_SETTING}.`,
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
    return { ok: false, message: check.error };
  }
  return { ok: true, presetId: preset.id, template, executable, warnings: templateWarnings(template, s.shell, custom !== '' ? 'custom' : preset.id) };
}

/** For `Get-Content … | agent …` (PowerShell) and `cat … | agent …` the program that matters is after the pipe. */
function afterInputPipe(command: string): string {
  const m = /^\s*(?:Get-Content|gc|cat|type)\b[^|]*\|\s*(.*)$/i.exec(command);
  return m ? m[1] : command;
}
