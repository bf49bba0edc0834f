/**
 * A workspace's ralph.* settings from the text of its `.vscode/settings.json` (JSON with comments
 * and trailing commas, as VS Code reads it), for the CLI: each setting present and usable gives its
 * value, every other one its default, and each problem is a line that names the key and where it
 * is. Never throws: a text that does not parse gives the defaults and one problem.
 */
import { type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import { describeJsonError, MAX_NESTING, nodeValue, tooDeepAt } from './jsonTree';
import { SETTING_KEYS, settingEntry, settingId, type SettingName, SETTINGS_SECTION, type SettingValues } from './settingKeys';
import { describeDefault, settingProblem, usableSettings } from './settingValues';
import { LineIndex } from './text';

export interface SettingsFileProblem {
  /** The setting's full id (`ralph.parallel.maxAgents`), when the problem is about one key. */
  readonly setting?: string;
  /** 1-based line in the file, when known. */
  readonly line?: number;
  /** One sentence for the user, naming the file (and its line) and what is used instead. */
  readonly message: string;
}

export interface SettingsFromFile {
  readonly values: SettingValues;
  readonly problems: readonly SettingsFileProblem[];
}

const byId: ReadonlyMap<string, SettingName> = new Map((Object.keys(SETTING_KEYS) as SettingName[]).map((n) => [settingId(n), n]));

const ALL_DEFAULTS = 'using the defaults of every ralph.* setting';

/** Every setting's default, with problems (a file that could not be used as a whole). */
export function defaultSettings(problems: readonly SettingsFileProblem[] = []): SettingsFromFile {
  return { values: usableSettings(() => undefined), problems };
}

/**
 * Reads the ralph.* settings of a settings.json text. `file` names it in messages (e.g.
 * `.vscode/settings.json`). Settings of scope `machine` are never taken from it: a repository must
 * not choose, say, where worktrees are written on the user's machine.
 */
export function settingsFromText(source: string, file: string): SettingsFromFile {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const lines = new LineIndex(text);
  const lineOf = (offset: number): number => lines.positionAt(offset).line + 1;
  if (text.trim() === '') {
    // VS Code reads an empty settings.json as no settings.
    return defaultSettings();
  }
  const deep = tooDeepAt(text);
  if (deep >= 0) {
    const line = lineOf(deep);
    return defaultSettings([{ line, message: `${file}:${line} is nested more than ${MAX_NESTING} levels deep: it was not read; ${ALL_DEFAULTS}` }]);
  }
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: false, allowTrailingComma: true, allowEmptyContent: true });
  if (errors.length > 0) {
    const first = errors[0];
    const line = lineOf(first.offset);
    return defaultSettings([{ line, message: `${file}:${line} does not parse (${describeJsonError(printParseErrorCode(first.error))}); ${ALL_DEFAULTS}` }]);
  }
  if (root?.type !== 'object') {
    const line = lineOf(root?.offset ?? 0);
    return defaultSettings([{ line, message: `${file}:${line} is not an object of settings; ${ALL_DEFAULTS}` }]);
  }
  const raw = new Map<SettingName, Node>();
  const problems: SettingsFileProblem[] = [];
  for (const property of root.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    const id = keyNode?.value;
    if (typeof id !== 'string' || !id.startsWith(`${SETTINGS_SECTION}.`) || !valueNode) {
      continue;
    }
    const line = lineOf(keyNode.offset);
    const name = byId.get(id);
    if (name === undefined) {
      problems.push({ setting: id, line, message: `${id} at ${file}:${line} is not a setting of Ralph Workbench; it was not used` });
    } else if (settingEntry(name).scope === 'machine') {
      problems.push({ setting: id, line, message: `${id} at ${file}:${line} is ignored: only your user settings can set it, never a workspace's; using ${describeDefault(name)}` });
    } else {
      // The last of repeated keys wins, as in VS Code.
      raw.set(name, valueNode);
    }
  }
  for (const [name, node] of raw) {
    const why = settingProblem(name, nodeValue(node));
    if (why !== undefined) {
      const id = settingId(name);
      const line = lineOf(node.offset);
      problems.push({ setting: id, line, message: `${id} at ${file}:${line} ${why}; using ${describeDefault(name)}` });
    }
  }
  problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const values = usableSettings((name) => {
    const node = raw.get(name);
    return node === undefined ? undefined : nodeValue(node);
  });
  return { values, problems };
}
