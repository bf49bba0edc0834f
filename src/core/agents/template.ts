/**
 * The command-line template language of `ralph.agent.command`.
 *
 * A template is a shell command line written for the terminal's shell, with three placeholders:
 * `${promptFile}`, `${storyId}` and `${workspaceFolder}`. NO VALUE EVER BECOMES PART OF THE
 * COMMAND LINE: each placeholder is replaced by a reference to an environment variable of the
 * agent's terminal (`RALPH_PROMPT_FILE`, `RALPH_STORY_ID`, `RALPH_WORKSPACE_FOLDER`), written for
 * the shell — `"$RALPH_STORY_ID"` (POSIX shells, fish), `$env:RALPH_STORY_ID` (PowerShell),
 * `"%RALPH_STORY_ID%"` (cmd.exe) — and the runner puts the values in the terminal's environment
 * (`agentEnvironment`). So whatever bytes a story id holds (quotes, `$(…)`, a TAB that would
 * trigger tab completion, a line break), the typed line is the same; the shell expands the variable
 * as one word at run time.
 *
 * The placeholder may stand alone (`< ${promptFile}`), be quoted alone (`"${promptFile}"`,
 * `'${promptFile}'`: the same), sit inside a double-quoted string (`"--story=${storyId}"`) or a
 * command substitution (`"$(cat ${promptFile})"`). Inside single quotes, where no shell expands a
 * variable, it is an error; so is an unclosed quote (the shell would wait for more input and the
 * run would never end). Any other `${…}` is an error; shell variables are written without braces.
 *
 * One more placeholder is a command, not a value: `${renderStream}` runs the render-stream filter of
 * the ralph-workbench command line that came with the extension or CLI (`agent … | ${renderStream}
 * --agent claude`). Its words (a program and a script path) come from that install, never from the
 * workspace, and are quoted for the shell (quoteArg); it must stand as a command of its own. The
 * environment the renderer needs (ELECTRON_RUN_AS_NODE, for VS Code's executable) is scoped to it
 * where the shell can say so exactly: POSIX shells and fish run it through `env NAME=value …`, so
 * the agent on the left of the pipe never inherits it. PowerShell (`$env:` is the whole session's)
 * and cmd.exe (each side of a pipe is a new cmd, but `&&` binds looser than `|`) have no exact
 * scoped form: there the variable stays in the terminal's environment (envOnCommandLine).
 */
import { quoteArg, type ShellKind } from './shell';

export const COMMAND_SETTING = 'ralph.agent.command';

export type { ShellKind };

export const PLACEHOLDERS = ['promptFile', 'storyId', 'workspaceFolder'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
export type TemplateVars = Readonly<Record<Placeholder, string>>;

/** The terminal environment variable that carries each placeholder's value. */
export const PLACEHOLDER_ENV: Readonly<Record<Placeholder, string>> = {
  promptFile: 'RALPH_PROMPT_FILE',
  storyId: 'RALPH_STORY_ID',
  workspaceFolder: 'RALPH_WORKSPACE_FOLDER',
};

/** The placeholder that stands for the bundled render-stream command (see the header). */
export const RENDER_STREAM = 'renderStream';

/** Commands of Ralph Workbench's own install that a template may run. */
export interface TemplateCommands {
  /** The words that run the bundled render-stream: program, script, `render-stream` (undefined: not known here). */
  readonly renderStream?: readonly string[];
  /** The environment the render-stream alone runs with: on the line in shells where envOnCommandLine, left out in the others. */
  readonly renderStreamEnv?: Readonly<Record<string, string>>;
}

/**
 * Whether the shell can give one command of a line its own environment exactly (`env NAME=value
 * program …`); otherwise that environment has to be the whole terminal's.
 */
export function envOnCommandLine(shell: ShellKind): boolean {
  return shell === 'posix' || shell === 'fish';
}

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

const knownList = [...PLACEHOLDERS, RENDER_STREAM].map((p) => `\${${p}}`).join(', ');
const isPlaceholder = (name: string): name is Placeholder => (PLACEHOLDERS as readonly string[]).includes(name);

/** Where a placeholder stands: a word of its own (or inside `$(…)`), or inside a double-quoted string. */
type Position = 'word' | 'double-quoted';

/** The shell text that expands to a placeholder's value (from the environment) at that position. */
function reference(name: Placeholder, shell: ShellKind, at: Position, next: string | undefined): string {
  const v = PLACEHOLDER_ENV[name];
  switch (shell) {
    case 'posix':
      return at === 'word' ? `"$${v}"` : `\${${v}}`;
    case 'fish':
      // In fish a variable name ends at the first non-name character; `""` ends it where text follows.
      return at === 'word' ? `"$${v}"` : `$${v}${next !== undefined && /[A-Za-z0-9_[]/.test(next) ? '""' : ''}`;
    case 'powershell':
      return at === 'word' ? `$env:${v}` : `\${env:${v}}`;
    case 'cmd':
      return at === 'word' ? `"%${v}%"` : `%${v}%`;
  }
}

type Segment =
  | string
  | { readonly name: Placeholder; readonly standalone: boolean; readonly afterDoubleDash: boolean }
  | { readonly command: typeof RENDER_STREAM };

interface Scan {
  readonly segments: readonly Segment[];
  readonly errors: readonly string[];
}

/**
 * Splits a template into literal text and placeholders (already rendered as references), following
 * the shell's quoting: double quotes, single quotes, `$(…)` (which starts a new quoting context),
 * and escapes (`\` POSIX and fish, `` ` `` PowerShell, `^` cmd).
 */
function scanTemplate(template: string, shell: ShellKind): Scan {
  const segments: Segment[] = [];
  const errors: string[] = [];
  const escape = shell === 'powershell' ? '`' : shell === 'cmd' ? '^' : '\\';
  const quotes = shell === 'cmd' ? '"' : `"'`;
  const subs = shell !== 'cmd';
  // The quoting contexts open at this point: '"', "'", '$(' (command substitution), '(' (a group inside one).
  const stack: string[] = [];
  let out = '';
  let i = 0;
  const placeholderAt = (at: number): { name: string; end: number } | undefined => {
    if (!template.startsWith('${', at)) {
      return undefined;
    }
    const close = template.indexOf('}', at + 2);
    return close < 0 ? { name: '', end: -1 } : { name: template.slice(at + 2, close), end: close + 1 };
  };
  const emit = (name: string, at: Position, end: number, standalone: boolean, quotedAlone = false): void => {
    if (name === RENDER_STREAM) {
      // Several words (program, script, arguments): quoting it would make them one.
      if (at !== 'word' || !standalone || quotedAlone) {
        errors.push(`\${${RENDER_STREAM}} is a command of its own: write it as a word after a pipe, e.g. claude … | \${${RENDER_STREAM}} --agent claude`);
        return;
      }
      if (out !== '') {
        segments.push(out);
        out = '';
      }
      segments.push({ command: RENDER_STREAM });
      return;
    }
    if (!isPlaceholder(name)) {
      errors.push(unknownPlaceholder(name));
      return;
    }
    const before = out.trimEnd();
    const afterDoubleDash = /(^|\s)--(\s|$)/.test(before) || segments.some((s) => typeof s === 'string' && /(^|\s)--(\s|$)/.test(s));
    if (out !== '') {
      segments.push(out);
      out = '';
    }
    segments.push({ name, standalone, afterDoubleDash });
    segments.push(reference(name, shell, at, template[end]));
  };
  while (i < template.length) {
    const c = template[i];
    const ctx = stack[stack.length - 1];
    if (ctx === undefined || ctx === '$(' || ctx === '(') {
      if (c === escape && i + 1 < template.length) {
        out += c + template[i + 1];
        i += 2;
        continue;
      }
      if (quotes.includes(c)) {
        const ph = placeholderAt(i + 1);
        if (ph && ph.end > 0 && template[ph.end] === c) {
          // "${promptFile}" or '${promptFile}': the user's habit of quoting; the same as the bare placeholder.
          emit(ph.name, 'word', ph.end + 1, isWordStart(out) && isWordEnd(template[ph.end + 1]), true);
          i = ph.end + 1;
          continue;
        }
        stack.push(c);
        out += c;
        i++;
        continue;
      }
      if (subs && c === '$' && template[i + 1] === '(') {
        stack.push('$(');
        out += '$(';
        i += 2;
        continue;
      }
      if (ctx !== undefined && c === '(') {
        stack.push('(');
      } else if (ctx !== undefined && c === ')') {
        stack.pop();
      }
      const ph = placeholderAt(i);
      if (ph) {
        if (ph.end < 0) {
          errors.push('"${" without a closing "}"');
          out += template.slice(i);
          break;
        }
        emit(ph.name, 'word', ph.end, isWordStart(out) && isWordEnd(template[ph.end]));
        i = ph.end;
        continue;
      }
      out += c;
      i++;
      continue;
    }
    if (ctx === '"') {
      const escapes = shell === 'powershell' ? '`' : shell === 'cmd' ? undefined : '\\';
      if (c === escapes && i + 1 < template.length) {
        out += c + template[i + 1];
        i += 2;
        continue;
      }
      if (c === '"') {
        stack.pop();
        out += c;
        i++;
        continue;
      }
      if (subs && c === '$' && template[i + 1] === '(') {
        stack.push('$(');
        out += '$(';
        i += 2;
        continue;
      }
      const ph = placeholderAt(i);
      if (ph) {
        if (ph.end < 0) {
          errors.push('"${" without a closing "}"');
          out += template.slice(i);
          break;
        }
        emit(ph.name, 'double-quoted', ph.end, false);
        i = ph.end;
        continue;
      }
      out += c;
      i++;
      continue;
    }
    // Inside single quotes: nothing expands (fish: \\ and \' are escapes; PowerShell: '' is a quote, which closing and reopening handles).
    if (shell === 'fish' && c === '\\' && (template[i + 1] === '\\' || template[i + 1] === "'")) {
      out += c + template[i + 1];
      i += 2;
      continue;
    }
    if (c === "'") {
      stack.pop();
      out += c;
      i++;
      continue;
    }
    const ph = placeholderAt(i);
    if (ph && ph.end < 0) {
      errors.push('"${" without a closing "}"');
    } else if (ph && (isPlaceholder(ph.name) || ph.name === RENDER_STREAM)) {
      errors.push(
        `\${${ph.name}} is inside single quotes, where the shell expands nothing; write it as a word of its own or inside double quotes, e.g. claude --print < \${promptFile}`,
      );
    } else if (ph) {
      errors.push(unknownPlaceholder(ph.name));
    }
    out += c;
    i++;
  }
  if (stack.length > 0 && !errors.some((e) => e.includes('without a closing'))) {
    const open = stack[stack.length - 1];
    errors.push(
      open === '"' || open === "'"
        ? `the quote ${open} is never closed (the shell would wait for more input and the run would never end)`
        : 'a "$(" or "(" is never closed (the shell would wait for more input and the run would never end)',
    );
  }
  if (out !== '') {
    segments.push(out);
  }
  return { segments, errors };
}

function isWordStart(before: string): boolean {
  return before === '' || /[\s<>|;&(]$/.test(before);
}

function isWordEnd(next: string | undefined): boolean {
  return next === undefined || /[\s<>|;&)]/.test(next);
}

function unknownPlaceholder(name: string): string {
  const hint = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name.startsWith('env:') ? ` (for a shell variable write $${name} without braces)` : '';
  return `unknown placeholder "\${${name}}"${hint}`;
}

function templateError(errors: readonly string[]): string {
  return `The agent command in the setting ${COMMAND_SETTING} is not usable: ${errors.join('; ')}. Placeholders are ${knownList}.`;
}

/** The placeholders a template uses, and a message naming the setting when it has unknown or misplaced ones or an unclosed quote. */
export function checkTemplate(template: string, shell: ShellKind = 'posix'): { used: Placeholder[]; rendersStream: boolean; error?: string } {
  const scan = scanTemplate(template, shell);
  const used: Placeholder[] = [];
  let rendersStream = false;
  for (const s of scan.segments) {
    if (typeof s === 'string') {
      continue;
    }
    if ('command' in s) {
      rendersStream = true;
    } else if (!used.includes(s.name)) {
      used.push(s.name);
    }
  }
  return scan.errors.length > 0 ? { used, rendersStream, error: templateError(scan.errors) } : { used, rendersStream };
}

/**
 * `env NAME=value …` before the render-stream's words, for shells where envOnCommandLine. env takes
 * every word with a `=` for an assignment, so a program whose path has one starts through
 * `sh -c 'exec "$0" "$@"'`, which takes it as a plain word.
 */
function scopedEnvWords(env: Readonly<Record<string, string>> | undefined, program: string, shell: ShellKind): string[] {
  const names = Object.keys(env ?? {});
  if (env === undefined || names.length === 0) {
    return [];
  }
  const bad = names.find((n) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(n));
  if (bad !== undefined) {
    throw new TemplateError(`\${${RENDER_STREAM}}: ${JSON.stringify(bad)} is not an environment variable name.`);
  }
  // The name stays bare (the shell would not take a quoted one for an assignment anyway); the value is quoted.
  const assignments = names.map((n) => `${n}=${quoteArg(env[n], shell)}`);
  const viaSh = program.includes('=') ? ['sh', '-c', 'exec "$0" "$@"'].map((w) => quoteArg(w, shell)) : [];
  return ['env', ...assignments, ...viaSh];
}

/** `${renderStream}` as the shell's words: each quoted (a program in command position needs `&` in PowerShell), after its scoped environment. */
function renderStreamWords(words: readonly string[] | undefined, shell: ShellKind, env: Readonly<Record<string, string>> | undefined): string {
  if (!words || words.length === 0) {
    throw new TemplateError(
      `The agent command runs \${${RENDER_STREAM}}, the render-stream of the bundled ralph-workbench command line, which is not known here. ` +
        `Set ${COMMAND_SETTING} to pipe into ralph-workbench render-stream instead (with the CLI on PATH), or leave \${${RENDER_STREAM}} out.`,
    );
  }
  let quoted: string;
  try {
    const prefix = envOnCommandLine(shell) ? scopedEnvWords(env, words[0], shell) : [];
    quoted = [...prefix, ...words.map((w) => quoteArg(w, shell))].join(' ');
  } catch (e) {
    throw new TemplateError(`\${${RENDER_STREAM}}: the path of the bundled command line ${e instanceof Error ? e.message : String(e)}`);
  }
  return shell === 'powershell' ? `& ${quoted}` : quoted;
}

/**
 * The command line to type into the terminal: the template with each placeholder replaced by a
 * reference to its environment variable (see PLACEHOLDER_ENV; the values go into the terminal's
 * environment with `agentEnvironment`). When `vars` are given they are checked: a value the shell
 * cannot carry (cmd.exe: `"`, `%`, `!`; any shell: NUL) or a story id that starts with `-` where
 * it stands as a word of its own (a program would take it for an option) throws TemplateError.
 * No byte of a value is ever in the result.
 */
export function expandTemplate(template: string, vars: TemplateVars | undefined, shell: ShellKind, commands: TemplateCommands = {}): string {
  const scan = scanTemplate(template, shell);
  if (scan.errors.length > 0) {
    throw new TemplateError(templateError(scan.errors));
  }
  let line = '';
  for (const s of scan.segments) {
    if (typeof s === 'string') {
      line += s;
      continue;
    }
    if ('command' in s) {
      line += renderStreamWords(commands.renderStream, shell, commands.renderStreamEnv);
      continue;
    }
    if (vars === undefined) {
      continue;
    }
    const value = vars[s.name];
    if (typeof value !== 'string') {
      throw new TemplateError(`No value for \${${s.name}} in the agent command (${COMMAND_SETTING}).`);
    }
    const problem = valueProblem(value, shell);
    if (problem) {
      throw new TemplateError(`The value of \${${s.name}} ${problem}`);
    }
    if (s.name === 'storyId' && value.startsWith('-') && s.standalone && !s.afterDoubleDash) {
      throw new TemplateError(
        `The story id ${JSON.stringify(value)} starts with "-": the agent program would take it for an option. Rename the story, ` +
          `or in ${COMMAND_SETTING} put "--" before \${storyId} or attach it to its option (--story=\${storyId}).`,
      );
    }
  }
  return line;
}

/** The terminal environment that carries the placeholders' values to the shell. */
export function agentEnvironment(vars: TemplateVars): Record<string, string> {
  return Object.fromEntries(PLACEHOLDERS.map((p) => [PLACEHOLDER_ENV[p], vars[p]]));
}

function valueProblem(value: string, shell: ShellKind): string | undefined {
  if (value.includes('\u0000')) {
    return 'contains a NUL character, which no environment variable can carry.';
  }
  if (shell === 'cmd') {
    // cmd.exe expands %VAR% before it parses the line: a quote in the value would end the quoting.
    const bad = /["%!\r\n]/.exec(value);
    if (bad) {
      return `contains ${JSON.stringify(bad[0])}, which cmd.exe cannot take literally: ${JSON.stringify(value)}. Use PowerShell or a POSIX shell as the terminal shell, or rename it.`;
    }
  }
  return undefined;
}

/** Things that will probably go wrong with a template in a shell (not errors: the user may know better). */
export function templateWarnings(template: string, shell: ShellKind, presetId = 'custom'): string[] {
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
