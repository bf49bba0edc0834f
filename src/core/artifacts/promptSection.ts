/**
 * The prompt's "GitHub issue" section: when the story to run has an issue with a linked (or
 * on-disk) plan, the agent gets the plan's path and its first lines, and the research document's
 * path. Pure: the caller reads the files.
 */
import type { ArtifactEntry, IssueArtifacts } from './issueArtifacts';
import type { ArtifactKind } from './protocol';

export interface IssuePlanInput {
  readonly issue: number;
  readonly title?: string;
  /** Workspace-relative path of the plan: the issue's own, else a group plan that names it. */
  readonly planPath: string;
  /** A group plan that also names the issue, when the quoted plan is the issue's own. */
  readonly groupPlanPath?: string;
  /** The plan's first lines (at most `PLAN_LINES`). */
  readonly planHead: string;
  /** True when the plan has more lines than were included. */
  readonly planTruncated: boolean;
  readonly researchPath?: string;
  readonly reviewVerdict?: string;
  /** The comment that linked the plan (undefined: found on disk by its file name). */
  readonly linkedBy?: { readonly commentUrl?: string; readonly author?: string; readonly association?: string };
}

export const PLAN_LINES = 100;

export interface PlanSources {
  readonly issue: IssueArtifacts;
  /** The entry of the quoted plan (its comment and author when linked). */
  readonly planEntry: ArtifactEntry;
  readonly planPath: string;
  readonly groupPlanPath?: string;
  readonly researchPath?: string;
  readonly reviewVerdict?: string;
}

/**
 * The local plan and research of the first issue that has a plan on disk (linked preferred): the
 * issue's own plan first, a group plan that names the issue otherwise; with both, the group plan
 * is named beside it.
 */
export function planSources(issues: readonly IssueArtifacts[]): PlanSources | undefined {
  for (const issue of issues) {
    const local = (kind: ArtifactKind): ArtifactEntry | undefined =>
      issue.artifacts.find((a) => a.kind === kind && a.status === 'linked' && a.path && !a.promptRefusal) ??
      issue.artifacts.find((a) => a.kind === kind && a.status === 'on-disk' && a.path && !a.promptRefusal);
    const own = local('plan');
    const group = local('group-plan');
    const planEntry = own ?? group;
    if (planEntry?.path) {
      const review = issue.artifacts.find((a) => a.kind === 'review' && a.verdict);
      return { issue, planEntry, planPath: planEntry.path, groupPlanPath: own ? group?.path : undefined, researchPath: local('research')?.path, reviewVerdict: review?.verdict };
    }
  }
  return undefined;
}

/**
 * A backtick fence longer than any run of backticks in `text` (at least 4): CommonMark closes a
 * fence only with a run at least as long as the opening one, so the quoted plan cannot end it.
 */
export function fenceFor(text: string): string {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    run = text.charCodeAt(i) === 96 ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return '`'.repeat(Math.max(4, longest + 1));
}

/** Who linked the plan, said so the agent (and a person reading the prompt) can check it. */
function linkedByLine(by: IssuePlanInput['linkedBy']): string {
  if (!by) {
    return 'Found by its file name (no issue comment links it).';
  }
  // GitHub logins are letters, digits and -, apps end in [bot]; anything else is dropped.
  const author = by.author ? `@${by.author.replace(/[^\w.[\]-]/g, '')}` : 'an unknown author';
  const association = by.association ? ` (${by.association.replace(/[^A-Z_]/gi, '')})` : '';
  const url = by.commentUrl && /^https:\/\/[^\s`<>]+$/.test(by.commentUrl) ? ` in ${by.commentUrl}` : '';
  return `Linked by ${author}${association}${url}.`;
}

/** The markdown section. */
export function issuePlanSection(p: IssuePlanInput): string {
  const lines = [`## GitHub issue #${p.issue}${p.title ? ` — ${p.title.replace(/\s+/g, ' ')}` : ''}`, ''];
  lines.push(`Implementation plan: \`${p.planPath}\`${p.reviewVerdict ? ` (plan review: ${p.reviewVerdict})` : ''}`);
  lines.push(linkedByLine(p.linkedBy));
  if (p.groupPlanPath) {
    lines.push(`Group implementation plan (covers this issue too): \`${p.groupPlanPath}\``);
  }
  if (p.researchPath) {
    lines.push(`Research document: \`${p.researchPath}\``);
  }
  const head = p.planHead.trimEnd();
  const fence = fenceFor(head);
  lines.push('', `First ${PLAN_LINES} lines of the plan${p.planTruncated ? ' (read the file for the rest)' : ''}:`, '', `${fence}markdown`, head, fence);
  return lines.join('\n');
}
