/**
 * Shells as the agent terminal meets them: which family a shell executable belongs to, quoting one
 * word for it (used for the paths Ralph Workbench itself controls, never for workspace values: those
 * travel in the environment, see template.ts), the program a command line starts, and finding that
 * program on PATH the way the shell would.
 */

/** The shell families whose quoting Ralph Workbench writes (template.ts re-exports it). */
export type ShellKind = 'posix' | 'fish' | 'powershell' | 'cmd';

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


/**
 * The PATH (and PATHEXT) an agent's terminal gets: the host's environment, changed by the user's
 * `terminal.integrated.env.<platform>` setting, whose values may refer to the host's variables as
 * `${env:NAME}` and whose null removes a variable. Names compare without case on Windows.
 */
export function terminalSearchPath(
  env: Readonly<Record<string, string | undefined>>,
  override: Readonly<Record<string, unknown>> | undefined,
  platform: 'win32' | 'posix',
): { path: string | undefined; pathExt: string | undefined } {
  const same = (a: string, b: string): boolean => (platform === 'win32' ? a.toUpperCase() === b.toUpperCase() : a === b);
  const hostValue = (name: string): string | undefined => {
    const key = Object.keys(env).find((k) => same(k, name));
    return key === undefined ? undefined : env[key];
  };
  const value = (name: string): string | undefined => {
    const key = Object.keys(override ?? {}).find((k) => same(k, name));
    if (key === undefined || !override) {
      return hostValue(name);
    }
    const v = override[key];
    if (typeof v !== 'string') {
      return v === null ? undefined : hostValue(name);
    }
    return v.replace(/\$\{env:([^}]+)\}/g, (_, n: string) => hostValue(n.trim()) ?? '');
  };
  return { path: value('PATH'), pathExt: value('PATHEXT') };
}
