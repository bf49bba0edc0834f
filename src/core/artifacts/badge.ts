/**
 * The task graph's badge for a story's issue: the status of each kind of artifact. Pure: the
 * GitHub workspace calls it for each story's first issue.
 */
import type { ArtifactBadgeDto } from '../webview/graphProtocol';
import type { ArtifactEntry, IssueArtifacts } from './issueArtifacts';
import type { ArtifactKind } from './protocol';

/** The entry that best stands for a kind: linked to a local file, linked, on disk, else missing. */
function best(issue: IssueArtifacts, kind: ArtifactKind): ArtifactEntry | undefined {
  const of = issue.artifacts.filter((a) => a.kind === kind);
  return of.find((a) => a.status === 'linked' && a.path) ?? of.find((a) => a.status === 'linked') ?? of.find((a) => a.status === 'on-disk') ?? of[0];
}

/** The badge of an issue: research, plan, group plan (only when there is one), review, implementation. */
export function artifactBadgeOf(issue: IssueArtifacts): ArtifactBadgeDto {
  const groupPlan = best(issue, 'group-plan')?.status;
  return {
    issue: issue.number,
    research: best(issue, 'research')?.status ?? 'missing',
    plan: best(issue, 'plan')?.status ?? 'missing',
    ...(groupPlan && groupPlan !== 'missing' ? { groupPlan } : {}),
    review: best(issue, 'review')?.status ?? 'missing',
    implementation: best(issue, 'implementation')?.status ?? 'missing',
    verdict: best(issue, 'review')?.verdict,
    // Every warning: the page-message builder (taskGraph/pageMessages.ts) clamps for the page and says how many more.
    warnings: [...issue.warnings],
  };
}
