/**
 * Whether a value may be used for a setting, and the value a run then uses: one rule for the
 * extension (src/services/settings.ts reads VS Code's configuration) and the CLI
 * (src/node/workspaceSettings.ts reads `.vscode/settings.json`), so both run with the same values.
 */
import { SETTING_KEYS, settingEntry as entryOf, type SettingName, type SettingValues } from './settingKeys';

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Why `raw` cannot be used for the setting, as the end of a sentence ("is not a number"), or
 * undefined when it can. A missing value (undefined) is no problem: the default applies.
 */
export function settingProblem(name: SettingName, raw: unknown): string | undefined {
  if (raw === undefined) {
    return undefined;
  }
  const entry = entryOf(name);
  const fallback = entry.default;
  if (typeof fallback === 'string') {
    if (typeof raw !== 'string') {
      return 'is not text';
    }
    return entry.oneOf && !entry.oneOf.includes(raw.trim()) ? `is not one of ${entry.oneOf.join(', ')}` : undefined;
  }
  if (typeof fallback === 'number') {
    if (typeof raw !== 'number' || !Number.isFinite(raw)) {
      return 'is not a number';
    }
    return entry.min !== undefined && raw < entry.min ? `is less than ${entry.min}` : undefined;
  }
  if (typeof fallback === 'boolean') {
    return typeof raw === 'boolean' ? undefined : 'is not true or false';
  }
  if (Array.isArray(fallback)) {
    return Array.isArray(raw) && raw.every((v) => typeof v === 'string') ? undefined : 'is not a list of texts';
  }
  // An object of texts (the issue filter).
  return isPlainObject(raw) && Object.values(raw).every((v) => typeof v === 'string') ? undefined : 'is not an object of texts';
}

/**
 * The value a run uses: `raw` when it can be used (text trimmed, where a blank text with a
 * non-empty default means the default; a count cut to a whole number), else the default.
 */
export function usableSetting<N extends SettingName>(name: N, raw: unknown): SettingValues[N] {
  const entry = entryOf(name);
  if (raw === undefined || settingProblem(name, raw) !== undefined) {
    return entry.default as SettingValues[N];
  }
  if (typeof raw === 'string') {
    return (raw.trim() || entry.default) as SettingValues[N];
  }
  if (typeof raw === 'number' && entry.integer) {
    return Math.floor(raw) as SettingValues[N];
  }
  return raw as SettingValues[N];
}

/** Every setting from one source of raw values (missing or unusable ones: their defaults). */
export function usableSettings(rawOf: (name: SettingName) => unknown): SettingValues {
  const values: Partial<Record<SettingName, unknown>> = {};
  for (const name of Object.keys(SETTING_KEYS) as SettingName[]) {
    values[name] = usableSetting(name, rawOf(name));
  }
  return values as SettingValues;
}

/** A default as the end of "…; using …": `3`, `"merge"`, `[]`, `the default (empty)`. */
export function describeDefault(name: SettingName): string {
  const fallback = entryOf(name).default;
  return fallback === '' ? 'the default (empty)' : JSON.stringify(fallback);
}
