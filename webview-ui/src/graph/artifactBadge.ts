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

const REMOTE_GLYPHS: Record<NonNullable<ArtifactBadgeDto['remote']>['kind'], string> = {
  'pull-merged': '✓',
  'pull-open': '⇡',
  running: '▶',
  queued: '…',
  'run-failed': '✗',
  'run-passed': '○',
  'issue-closed': '',
  'issue-open': '',
};

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
  // The remote state as one glyph (its words in the tooltip and the spoken text): ▶ running, … queued, ✓ merged, ✗ failed, ⇡ a pull request open.
  const glyph = a.remote ? REMOTE_GLYPHS[a.remote.kind] : '';
  const text = `#${a.issue}${letters.length > 0 ? ` ${letters.join(' ')}` : ''}${glyph ? ` ${glyph}` : ''}`;
  const spoken = `issue #${a.issue}: ${slots.map(([k, , word]) => `${word} ${STATUS_WORDS[a[k] ?? 'missing']}`).join(', ')}`;
  const onGitHub = a.remote ? `on GitHub: ${a.remote.label}` : '';
  const lines = [spoken + (a.verdict ? ` (review: ${a.verdict})` : ''), ...(onGitHub ? [onGitHub] : []), ...a.warnings.map((w) => `⚠ ${w}`)];
  const said = onGitHub ? `${spoken}, ${onGitHub}` : spoken;
  return { text, warn: a.warnings.length > 0 || a.remote?.kind === 'run-failed', spoken: a.warnings.length > 0 ? `${said}, ${a.warnings.length === 1 ? 'a warning' : `${a.warnings.length} warnings`}` : said, tooltip: lines.join('\n') };
}
