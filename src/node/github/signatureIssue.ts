/**
 * Files a failure signature as a GitHub issue (issue 21), deduplicated by its label
 * `ralph-signature:<short hash>`: while an open issue carries the label, the signature repeating
 * is a comment there; otherwise a new issue (GitHub creates the label with it). Through THE client
 * (client.ts): answers checked, writes paced, a POST never retried. Who may make an issue count as
 * a signature's: only people with triage access can label an issue (GitHub drops labels from the
 * issues of others), so a label match is that rule, as with the `ralph` label of published stories.
 */
import { createHash } from 'node:crypto';
import { SIGNATURE_LABEL_PREFIX, type SignatureReport, signatureCommentBody, signatureIssueBody, signatureIssueTitle } from '../../core/github/signatureIssue';
import type { GitHubClient } from './client';

/** `ralph-signature:` and the first 10 hex digits of the signature's SHA-256: the same signature, the same label. */
export function signatureLabel(signature: string): string {
  return `${SIGNATURE_LABEL_PREFIX}${createHash('sha256').update(signature, 'utf8').digest('hex').slice(0, 10)}`;
}

export interface SignatureIssueFiled {
  /** A new issue, or a comment on the open one of the same signature. */
  readonly kind: 'created' | 'commented';
  readonly number: number;
  readonly url?: string;
}

/** What of the client filing needs (a port: the tests may pass the real client against the emulator). */
export type SignatureIssueClient = Pick<GitHubClient, 'listIssues' | 'createIssue' | 'createComment'>;

export async function openSignatureIssue(client: SignatureIssueClient, report: SignatureReport): Promise<SignatureIssueFiled> {
  // GitHub's label filter ignores case; the open issues are few, so the oldest one found is the one.
  const open = (await client.listIssues({ labels: report.label, state: 'open' })).filter((i) => i.state === 'open' && i.labels.some((l) => l.toLowerCase() === report.label.toLowerCase()));
  const existing = open.sort((a, b) => a.number - b.number)[0];
  if (existing) {
    const comment = await client.createComment(existing.number, signatureCommentBody(report));
    return { kind: 'commented', number: existing.number, url: comment.html_url ?? existing.htmlUrl };
  }
  const created = await client.createIssue({ title: signatureIssueTitle(report), body: signatureIssueBody(report), labels: [report.label] });
  return { kind: 'created', number: created.number, url: created.htmlUrl };
}
