/**
 * What the task graph shows for a story's GitHub issue: a compact text ("#42 R P V"), whether it
 * warns (a prerequisite is missing), and the words a screen reader says. Pure (no DOM), shared by the page
 * (drawing and wave list) and the unit tests.
 */
import type { ArtifactBadgeDto } from '../../../src/core/webview/graphProtocol';

const SLOTS = [
  ['research', 'R', 'research'],
  ['plan', 'P', 'plan'],
  ['groupPlan', 'G', 'group plan'],
  ['review', 'V', 'review'],
  ['implementation', 'I', 'implementation'],
] as const;

const STATUS_WORDS: Record<ArtifactBadgeDto['research'], string> = { linked: 'linked', 'on-disk': 'on disk, not linked', missing: 'missing' };

export interface ArtifactBadgeView {
  /** "#42 R P V": the issue and a letter per present artifact (research, plan, G for a group plan, review, implementation). */
  readonly text: string;
  /** True when a prerequisite is missing (the issue's phase warnings). */
  readonly warn: boolean;
  /** "issue #42: research linked, plan on disk, not linked, review missing, implementation missing". */
  readonly spoken: string;
  /** The spoken text plus the verdict and the warnings, one per line. */
  readonly tooltip: string;
}

export function artifactBadgeView(a: ArtifactBadgeDto): ArtifactBadgeView {
  // A group plan is said only when there is one (most issues have none).
  const slots = SLOTS.filter(([k]) => k !== 'groupPlan' || (a.groupPlan !== undefined && a.groupPlan !== 'missing'));
  const letters = slots.filter(([k]) => a[k] !== 'missing').map(([, letter]) => letter);
  const text = `#${a.issue}${letters.length > 0 ? ` ${letters.join(' ')}` : ''}`;
  const spoken = `issue #${a.issue}: ${slots.map(([k, , word]) => `${word} ${STATUS_WORDS[a[k] ?? 'missing']}`).join(', ')}`;
  const lines = [spoken + (a.verdict ? ` (review: ${a.verdict})` : ''), ...a.warnings.map((w) => `⚠ ${w}`)];
  return { text, warn: a.warnings.length > 0, spoken: a.warnings.length > 0 ? `${spoken}, ${a.warnings.length === 1 ? 'a warning' : `${a.warnings.length} warnings`}` : spoken, tooltip: lines.join('\n') };
}
