/**
 * One issue's artifacts, put together from its comments (the source of truth) and the files
 * found by name (the fallback), and the phase that comes next. Pure: the caller says which
 * local files exist and what verdict a review document on disk carries.
 */
import type { DiskArtifact } from './discovery';
import { type ArtifactComment, type ArtifactKind, type IssueComment, KIND_LABELS, scanComments, type Verdict } from './protocol';
import { DEFAULT_TRUST, refusedDocument, type TrustRules, untrustedAuthor } from './trust';
import { mapArtifactUrl, type RepoRef } from './url';

export type ArtifactStatus = 'linked' | 'on-disk' | 'missing';
export type Phase = 'research' | 'plan' | 'review' | 'implement' | 'done';

export interface ArtifactEntry {
  readonly kind: ArtifactKind;
  readonly status: ArtifactStatus;
  /** The document's URL (from the comment). */
  readonly url?: string;
  /** The comment that links it, and its author (login, `author_association`). */
  readonly commentUrl?: string;
  readonly commentId?: number;
  readonly author?: string;
  readonly authorAssociation?: string;
  /** Workspace-relative, `/`-separated; only for a file inside the workspace that exists. */
  readonly path?: string;
  readonly verdict?: Verdict;
  readonly summary?: readonly string[];
  readonly selfHealed?: boolean;
  /** Why a linked URL is not opened as a local file. */
  readonly remoteReason?: string;
  /**
   * Why this document is never given to an agent (trust.ts `refusedDocument`: not a .md file under
   * the artifact folders, a dotfile, under .git/), though it is shown: a file the fallback by name
   * found in an artifact folder stays linked or on disk, so self-heal does not offer it again.
   */
  readonly promptRefusal?: string;
  readonly createdAt?: string;
}

export interface IssueArtifacts {
  readonly number: number;
  readonly title?: string;
  readonly state?: string;
  readonly labels: readonly string[];
  readonly phase: Phase;
  readonly artifacts: readonly ArtifactEntry[];
  readonly warnings: readonly string[];
  /** Set when the issue could not be read from GitHub: the artifacts come from disk only (or from the cache, see `cachedAt`). */
  readonly error?: string;
  /** Set when GitHub was unreachable and the comments are those fetched at this time (ISO): links shown are cached. */
  readonly cachedAt?: string;
}

export interface AssembleInput {
  readonly number: number;
  /** Every comment of the issue, or undefined when GitHub was not read (disk only). */
  readonly comments?: readonly IssueComment[];
  readonly disk: readonly DiskArtifact[];
  readonly repo?: RepoRef;
  /** Whether a workspace-relative path is a file inside the workspace. */
  readonly isLocalFile: (path: string) => boolean;
  /** Verdicts read from review documents on disk, by path. */
  readonly diskVerdicts?: ReadonlyMap<string, Verdict>;
  /** Who may link documents and which documents may be read (default: DEFAULT_TRUST). */
  readonly trust?: TrustRules;
}

/**
 * One slot per kind, in the view's order. An issue's own plan and a group plan that also names
 * the issue are separate (issue 16): neither hides the other. A group plan is listed only when
 * there is one (most issues have none), never as "missing".
 */
const SLOTS: readonly ArtifactKind[] = ['research', 'plan', 'group-plan', 'review', 'implementation'];

/** At most this many "not followed" warnings per issue (a flood of comments says so in one line). */
const MAX_UNTRUSTED_WARNINGS = 5;

/**
 * The newest comment of each kind among those whose author may link documents; every other
 * artifact comment gets a warning that says who wrote it and why it was not followed.
 */
function trustedLatest(all: readonly ArtifactComment[], trust: TrustRules, warnings: string[]): Map<ArtifactKind, ArtifactComment> {
  const latest = new Map<ArtifactKind, ArtifactComment>();
  let untrusted = 0;
  for (const c of all) {
    const why = untrustedAuthor(c, trust);
    if (why === undefined) {
      latest.set(c.kind, c);
    } else if (++untrusted <= MAX_UNTRUSTED_WARNINGS) {
      const who = `${c.author ? `@${c.author}` : 'an unknown author'} (${(c.authorAssociation ?? 'NONE').toUpperCase()})`;
      warnings.push(`${KIND_LABELS[c.kind]} comment ${c.commentUrl ?? `#${c.commentId}`} by ${who} was not followed: ${why}.`);
    }
  }
  if (untrusted > MAX_UNTRUSTED_WARNINGS) {
    warnings.push(`${untrusted - MAX_UNTRUSTED_WARNINGS} more artifact comments by untrusted authors were not followed.`);
  }
  return latest;
}

/** The artifacts of an issue, one slot per kind. */
export function assembleArtifacts(input: AssembleInput): { artifacts: ArtifactEntry[]; warnings: string[] } {
  const artifacts: ArtifactEntry[] = [];
  const warnings: string[] = [];
  const scanned = input.comments ? scanComments(input.comments) : undefined;
  for (const ig of scanned?.ignored ?? []) {
    warnings.push(`Comment ${ig.commentUrl ?? `#${ig.commentId}`} ${ig.reason}.`);
  }
  const trust = input.trust ?? DEFAULT_TRUST;
  const latest = trustedLatest(scanned?.all ?? [], trust, warnings);
  // An issue covered by a group plan only does not list its own plan as missing.
  const hasGroupPlan = latest.has('group-plan') || input.disk.some((d) => d.kind === 'group-plan');
  for (const slot of SLOTS) {
    const comment = latest.get(slot);
    const onDisk = input.disk.filter((d) => d.kind === slot);
    let linkedPath: string | undefined;
    if (comment) {
      for (const n of comment.notes) {
        warnings.push(`${KIND_LABELS[comment.kind]} comment ${comment.commentUrl ?? `#${comment.commentId}`}: ${n}.`);
      }
      const mapped = comment.url ? mapArtifactUrl(comment.url, input.repo) : undefined;
      let remoteReason: string | undefined;
      const refused = mapped?.local ? refusedDocument(mapped.path, trust) : undefined;
      // A refused path is never looked at, unless the fallback by name found it in an artifact folder.
      const foundByName = mapped?.local === true && input.disk.some((d) => d.path === mapped.path);
      if (mapped?.local && refused && !foundByName) {
        remoteReason = refused;
        warnings.push(`${KIND_LABELS[comment.kind]} comment ${comment.commentUrl ?? `#${comment.commentId}`} links ${mapped.path}, which is not read: ${refused}.`);
      } else if (mapped?.local) {
        if (input.isLocalFile(mapped.path)) {
          linkedPath = mapped.path;
          if (refused) {
            warnings.push(`${KIND_LABELS[comment.kind]} ${mapped.path} is linked, but never given to the agent: ${refused}.`);
          }
        } else {
          remoteReason = `${mapped.path} is not in this workspace`;
          warnings.push(`${KIND_LABELS[comment.kind]} is linked to ${mapped.path}, which is not in this workspace: open it on GitHub.`);
        }
      } else if (mapped) {
        remoteReason = mapped.reason;
      }
      const verdict = comment.kind === 'review' ? (comment.verdict ?? (linkedPath ? input.diskVerdicts?.get(linkedPath) : undefined)) : undefined;
      artifacts.push({
        kind: comment.kind,
        status: 'linked',
        url: comment.url,
        commentUrl: comment.commentUrl,
        commentId: comment.commentId,
        author: comment.author,
        authorAssociation: comment.authorAssociation,
        path: linkedPath,
        verdict,
        summary: comment.summary,
        selfHealed: comment.selfHealed,
        remoteReason,
        promptRefusal: linkedPath ? refused : undefined,
        createdAt: comment.createdAt,
      });
    }
    if (!comment || linkedPath === undefined) {
      const d = onDisk[0];
      if (d) {
        artifacts.push({
          kind: d.kind,
          status: 'on-disk',
          path: d.path,
          promptRefusal: refusedDocument(d.path, trust),
          verdict: d.kind === 'review' ? input.diskVerdicts?.get(d.path) : undefined,
        });
      } else if (!comment && slot !== 'group-plan' && !(slot === 'plan' && hasGroupPlan)) {
        artifacts.push({ kind: slot, status: 'missing' });
      }
    }
  }
  return { artifacts, warnings };
}

/** A plan of the issue's own, else a group plan that names it: either lets the pipeline go on. */
function present(artifacts: readonly ArtifactEntry[], slot: 'research' | 'plan' | 'review' | 'implementation'): ArtifactEntry | undefined {
  const of = (kind: ArtifactKind): ArtifactEntry | undefined => artifacts.find((a) => a.kind === kind && a.status !== 'missing');
  return slot === 'plan' ? (of('plan') ?? of('group-plan')) : of(slot);
}

/** The phase that comes next, and warnings for missing prerequisites. */
export function phaseOf(artifacts: readonly ArtifactEntry[]): { phase: Phase; warnings: string[] } {
  const warnings: string[] = [];
  const research = present(artifacts, 'research');
  const plan = present(artifacts, 'plan');
  const review = artifacts.find((a) => a.kind === 'review' && a.status !== 'missing' && a.verdict) ?? present(artifacts, 'review');
  const impl = present(artifacts, 'implementation');
  if (plan && !research) {
    warnings.push('A plan exists but no research document: planning needs research.');
  }
  if (impl && !plan) {
    warnings.push('Implementation is complete but there is no plan: implementing needs a plan.');
  }
  if (review && !plan) {
    warnings.push('A plan review exists but no plan.');
  }
  const after = (a?: ArtifactEntry, b?: ArtifactEntry): boolean =>
    !a?.createdAt || !b?.createdAt || Date.parse(a.createdAt) >= Date.parse(b.createdAt);
  if (impl && review?.verdict === 'NEEDS_ITERATION' && after(impl, review)) {
    warnings.push('Implemented although the plan review says NEEDS_ITERATION.');
  }
  let phase: Phase;
  if (impl) {
    phase = 'done';
  } else if (!plan) {
    phase = research ? 'plan' : 'research';
  } else if (!review) {
    phase = 'review';
  } else if (review.verdict === 'APPROVED') {
    phase = 'implement';
  } else if (review.verdict === 'NEEDS_ITERATION') {
    // A plan posted after the critique is the iterated plan: it needs a new review.
    phase = plan.createdAt && review.createdAt && Date.parse(plan.createdAt) > Date.parse(review.createdAt) ? 'review' : 'plan';
  } else {
    phase = 'review';
    warnings.push('The plan review has no verdict (APPROVED or NEEDS_ITERATION).');
  }
  return { phase, warnings };
}

/** Assembles an issue: artifacts, phase, and every warning. */
export function issueArtifacts(
  input: AssembleInput & { title?: string; state?: string; labels?: readonly string[]; error?: string },
): IssueArtifacts {
  const { artifacts, warnings } = assembleArtifacts(input);
  const p = phaseOf(artifacts);
  return {
    number: input.number,
    title: input.title,
    state: input.state,
    labels: input.labels ?? [],
    phase: p.phase,
    artifacts,
    warnings: [...warnings, ...p.warnings],
    error: input.error,
  };
}

export const PHASE_LABELS: Readonly<Record<Phase, string>> = {
  research: 'next: research',
  plan: 'next: plan',
  review: 'next: plan review',
  implement: 'next: implement',
  done: 'implemented',
};
