/**
 * THE words for a story's state: one table read by the Stories tree, the task graph page (its
 * icons, legend, colours and spoken names), the CLI and the status bar, so a state is named, drawn
 * and read aloud the same everywhere. Pure data (the webview page imports it too, see the
 * `ralph/layers` rule): a new state gets a row here, and `test/unit/vocabulary.test.ts` checks that
 * every surface uses it.
 */

/**
 * done · ready (runnable now) · next (the ready story a loop runs first) · blocked (waits on
 * unfinished stories) · cycle (on a dependency cycle, or blocked by itself) · invalid (can never
 * run: a problem in the story, an unknown dependency, or a cycle behind it) · running (its agent
 * is at work) · stale (as it was at the last good read of a prd.json that cannot be read now).
 */
export type StoryStateKey = 'done' | 'ready' | 'next' | 'blocked' | 'cycle' | 'invalid' | 'running' | 'stale';

export interface StateWords {
  /** The short word a row or a line shows ("US-006 · next · …"). */
  readonly word: string;
  /** The codicon id (no `$()`, no `~spin`). */
  readonly codicon: string;
  /** The VS Code theme colour id (a `ThemeColor`; the page reads it as `--vscode-<id with - for .>`). */
  readonly color: string;
  /** What a screen reader says: the accessible name's state part, the legend, the CLI's reasons. */
  readonly spoken: string;
}

export const STORY_STATES: Readonly<Record<StoryStateKey, StateWords>> = {
  done: { word: 'done', codicon: 'pass-filled', color: 'testing.iconPassed', spoken: 'done' },
  ready: { word: 'ready', codicon: 'circle-large-outline', color: 'charts.blue', spoken: 'ready' },
  next: { word: 'next', codicon: 'play-circle', color: 'charts.blue', spoken: 'ready, runs next' },
  blocked: { word: 'blocked', codicon: 'circle-slash', color: 'list.warningForeground', spoken: 'blocked' },
  cycle: { word: 'in a cycle', codicon: 'sync', color: 'list.errorForeground', spoken: 'in a dependency cycle' },
  invalid: { word: 'invalid', codicon: 'error', color: 'list.errorForeground', spoken: 'can never run' },
  running: { word: 'running', codicon: 'loading', color: 'charts.blue', spoken: 'running now' },
  stale: { word: 'stale', codicon: 'history', color: 'disabledForeground', spoken: 'stale, as at the last good read' },
};

/** Every state, in the order a legend lists them. */
export const STORY_STATE_KEYS = Object.keys(STORY_STATES) as readonly StoryStateKey[];

/** The CSS custom property VS Code defines in a webview for a theme colour id: `charts.blue` → `--vscode-charts-blue`. */
export function themeColorVariable(color: string): string {
  return `--vscode-${color.replace(/\./g, '-')}`;
}
