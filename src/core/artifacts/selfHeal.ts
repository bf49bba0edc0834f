/**
 * Self-heal: post the missing comment for an artifact found on disk. Pure planning; the caller
 * re-reads the comments right before posting and passes them here, so a link already posted
 * (by another window, an earlier run or an agent) is never posted again.
 */
import type { ArtifactEntry } from './issueArtifacts';
import { type ArtifactKind, type IssueComment, scanComments, selfHealBody } from './protocol';
import { blobUrl, mapArtifactUrl, type RepoRef } from './url';

export interface PlannedComment {
  readonly kind: ArtifactKind;
  readonly path: string;
  readonly url: string;
  readonly body: string;
}

/** Workspace paths that some artifact comment of the issue already links (any kind, any age). */
export function linkedPaths(comments: readonly IssueComment[], repo: RepoRef): Set<string> {
  const out = new Set<string>();
  for (const a of scanComments(comments).all) {
    const m = a.url ? mapArtifactUrl(a.url, repo) : undefined;
    if (m?.local) {
      out.add(m.path);
    }
  }
  return out;
}

/**
 * The comments to post for the given on-disk artifacts: the URL on `ref` (the default branch)
 * and the self-heal note. Paths already linked by a comment are left out, and each path once;
 * so is a path whose link would not read back as linked.
 */
export function planSelfHeal(
  candidates: readonly Pick<ArtifactEntry, 'kind' | 'path' | 'status'>[],
  freshComments: readonly IssueComment[],
  repo: RepoRef,
  ref: string,
): PlannedComment[] {
  const done = linkedPaths(freshComments, repo);
  const out: PlannedComment[] = [];
  for (const c of candidates) {
    if (c.status !== 'on-disk' || !c.path || done.has(c.path)) {
      continue;
    }
    done.add(c.path);
    const url = blobUrl(repo, ref, c.path);
    const body = selfHealBody(c.kind, url);
    // A link that would not read back as this document (a name with `\` or a drive letter, which
    // means another file on Windows) would be posted again by every self-heal: never post it.
    if (linkedPaths([{ id: 0, body }], repo).has(c.path)) {
      out.push({ kind: c.kind, path: c.path, url, body });
    }
  }
  return out;
}
