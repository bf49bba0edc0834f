/**
 * The keys under which real prd.json files list a story's dependencies. `blockedBy` is Ralph's
 * own; `dependsOn` is ralph-tui's (and what snarktank/ralph's own prd.json used); `dependencies`
 * and `depends_on` are seen in users' files. Read them all; every edit writes the key the story
 * already uses, and a new dependency list uses `blockedBy` unless the file already uses another key.
 */
export const DEPENDENCY_KEYS = ['blockedBy', 'dependsOn', 'dependencies', 'depends_on'] as const;
export type DependencyKey = (typeof DEPENDENCY_KEYS)[number];

export function isDependencyKey(key: string): key is DependencyKey {
  return (DEPENDENCY_KEYS as readonly string[]).includes(key);
}

/** The dependency keys a story object uses, in DEPENDENCY_KEYS order. */
export function dependencyKeysOf(story: Readonly<Record<string, unknown>>): DependencyKey[] {
  return DEPENDENCY_KEYS.filter((k) => Object.prototype.hasOwnProperty.call(story, k));
}
