/**
 * Publish Stories to GitHub (issue 20): every story of prd.json as an issue, the feature as parent
 * issue(s) holding them as sub-issues, each `blockedBy` as a native "blocked by" dependency.
 * Shared by the CLI (`ralph-workbench github publish`) and the extension (Publish Stories to
 * GitHub…); what to write is decided in core (core/github/publishPlan.ts), here it is read and sent.
 *
 * Idempotent and resumable: issues are found again by their marker among the issues labelled
 * `ralph` (a listing, not a search, which lags behind writes) before any is created, so a publish
 * that was cut off — network gone, Ctrl-C, window closed — goes on without a duplicate; a second
 * publish with nothing changed writes nothing. Writes go one at a time through the client's
 * throttle (`writeIntervalMs` apart, limits waited out); reads are conditional (ETags).
 */
import { issuesOfField } from '../../core/artifacts/storyIssues';
import type { TrustRules } from '../../core/artifacts/trust';
import type { PrdAnalysis } from '../../core/prd/index';
import { describeOp, type DependencySeen, type IssueSeen, type LinkOp, planIssues, planLinks, type StoryToPublish } from '../../core/github/publishPlan';
import { featureIssueContent, LABEL_SPECS, RALPH_LABEL, storyIssueContent } from '../../core/github/storyIssue';
import { errorMessage } from '../../core/errorMessage';
import type { RemoteIssue } from './issuesApi';

/** The issue fields the publisher reads. */
export type PublishIssue = Pick<RemoteIssue, 'number' | 'id' | 'title' | 'body' | 'state' | 'labels' | 'isPullRequest' | 'repositoryUrl' | 'author'>;

/** The GitHub client's methods a publish uses (src/node/github/client.ts). */
export interface PublishPort {
  listIssuesWithLabel(label: string): Promise<readonly PublishIssue[]>;
  getIssueFull(number: number): Promise<PublishIssue>;
  createIssue(input: { title: string; body: string; labels?: readonly string[] }): Promise<PublishIssue>;
  updateIssue(number: number, patch: { title?: string; body?: string; state?: 'open' | 'closed'; stateReason?: 'completed' | 'not_planned' | 'reopened'; labels?: readonly string[] }): Promise<PublishIssue>;
  listLabels(): Promise<readonly { name: string }[]>;
  createLabel(label: { name: string; color: string; description?: string }): Promise<void>;
  listSubIssues(parent: number): Promise<readonly PublishIssue[]>;
  addSubIssue(parent: number, childId: number): Promise<void>;
  listBlockedBy(number: number): Promise<readonly PublishIssue[]>;
  addBlockedBy(number: number, blockerId: number): Promise<void>;
  removeBlockedBy(number: number, blockerId: number): Promise<void>;
}

export interface PublishProgress {
  /** What it does now, for a progress notification or a status line. */
  readonly message: string;
  /** Writes done and planned so far (planned grows as the second step is planned). */
  readonly done: number;
  readonly total: number;
}

export interface PublishOptions {
  /** Plan, write nothing. */
  readonly dryRun?: boolean;
  /** Cancels between two requests; what was written stays (the next publish goes on from it). */
  readonly signal?: AbortSignal;
  /** "owner/repo": an issue whose `repository_url` ends in another `/repos/{owner}/{repo}` is another repository's. */
  readonly repository?: string;
  /** Whose markers count (ralph.github.trustedAuthors): an issue opened by anyone else is never taken as a story's by its text. */
  readonly trust?: TrustRules;
  onProgress?(p: PublishProgress): void;
}

export interface PublishReport {
  /** What prd.json's `issue` field of each story should say (every story that has an issue). */
  readonly issueNumbers: ReadonlyMap<string, number>;
  readonly created: readonly { readonly storyId: string; readonly number: number }[];
  /** Every write made (or, in a dry run, planned), one line each. */
  readonly writes: readonly string[];
  /** 'body-list' where GitHub has no dependencies API: the issue texts list "Blocked by #n". */
  readonly dependencies: 'native' | 'body-list';
  readonly notes: readonly string[];
  readonly parents: readonly number[];
}

/** A publish that stopped part way (cancelled or failed): what it did before is in `partial`. */
export class PublishStopped extends Error {
  constructor(
    message: string,
    readonly partial: PublishReport,
    readonly cancelled: boolean,
  ) {
    super(message);
    this.name = 'PublishStopped';
  }
}

/** The stories of prd.json as the publish sees them (readiness, dependencies, `issue` field). */
export function storiesToPublish(analysis: PrdAnalysis): StoryToPublish[] {
  const byId = new Map(analysis.readiness.states.map((s) => [s.story.id, s.status] as const));
  const seen = new Set<string>();
  const out: StoryToPublish[] = [];
  for (const s of analysis.doc.stories) {
    if (seen.has(s.id) || s.idDerived) {
      continue; // a duplicate or an id-less story has no stable marker: the validator reports it
    }
    seen.add(s.id);
    out.push({ id: s.id, title: s.title, description: s.description, acceptanceCriteria: s.acceptanceCriteria, passes: s.passes, status: byId.get(s.id) ?? 'blocked', dependencies: s.dependencies, fieldIssues: issuesOfField(s) });
  }
  return out;
}

/** Why a prd.json cannot be published, or undefined. */
export function publishRefusal(analysis: PrdAnalysis): string | undefined {
  if (!analysis.doc.branchName || analysis.doc.branchName.trim() === '') {
    return 'prd.json has no "branchName": the feature\'s parent issue is named after it. Add one (e.g. "ralph/my-feature"), then publish.';
  }
  if (analysis.doc.stories.length === 0) {
    return 'prd.json has no stories to publish.';
  }
  const dup = analysis.problems.find((p) => p.code === 'duplicate-id');
  return dup ? `prd.json has duplicate story ids (${dup.message}): each story needs its own id before its issue can be found again.` : undefined;
}

export async function publishStories(port: PublishPort, analysis: PrdAnalysis, options: PublishOptions = {}): Promise<PublishReport> {
  const refusal = publishRefusal(analysis);
  if (refusal) {
    throw new Error(refusal);
  }
  const run = new PublishRun(port, analysis, options);
  try {
    return await run.go();
  } catch (e) {
    const cancelled = options.signal?.aborted === true;
    throw new PublishStopped(cancelled ? 'The publish was cancelled; what it wrote stays, and the next publish goes on from there.' : `The publish stopped: ${errorMessage(e)}`, run.report(), cancelled);
  }
}

class PublishRun {
  private readonly feature: string;
  private readonly stories: StoryToPublish[];
  private readonly issues = new Map<string, { issue: IssueSeen; managed: boolean; fresh: boolean }>();
  private readonly created: { storyId: string; number: number }[] = [];
  private readonly writes: string[] = [];
  private readonly notes: string[] = [];
  private readonly parents: { part: number; issue: IssueSeen; fresh: boolean }[] = [];
  private dependencies: 'native' | 'body-list' = 'native';
  private planned = 0;
  private fakeNumber = 0;

  constructor(
    private readonly port: PublishPort,
    analysis: PrdAnalysis,
    private readonly options: PublishOptions,
  ) {
    this.feature = (analysis.doc.branchName ?? '').trim();
    const stories = storiesToPublish(analysis);
    // Schedule order: a story's blockers get their issues first (lower numbers; a "Blocked by" list can name them).
    const rank = new Map(analysis.readiness.order.map((s, i) => [s.story.id, i] as const));
    this.stories = [...stories].sort((a, b) => (rank.get(a.id) ?? Infinity) - (rank.get(b.id) ?? Infinity));
  }

  report(): PublishReport {
    const issueNumbers = new Map<string, number>();
    for (const [id, { issue }] of this.issues) {
      if (issue.number > 0) {
        issueNumbers.set(id, issue.number);
      }
    }
    return { issueNumbers, created: [...this.created], writes: [...this.writes], dependencies: this.dependencies, notes: [...this.notes], parents: this.parents.map((p) => p.issue.number).filter((n) => n > 0) };
  }

  async go(): Promise<PublishReport> {
    this.progress('Reading labels and issues…');
    await this.ensureLabels();
    const labelled = (await this.port.listIssuesWithLabel(RALPH_LABEL)).filter((i) => !i.isPullRequest).map(seen);
    const byField = await this.readFieldIssues(labelled);
    const plan = planIssues(this.stories, this.feature, labelled, byField, this.options.trust);
    this.notes.push(...plan.notes);
    for (const [part, issue] of plan.parents) {
      this.parents.push({ part, issue, fresh: false });
    }
    await this.ensureParents(plan.partsNeeded);
    await this.probeDependencies();

    const toCreate = this.stories.filter((s) => plan.matches.get(s.id)?.kind === 'create' && !this.skipped.has(s.id));
    this.planned += toCreate.length;
    for (const s of this.stories) {
      const m = plan.matches.get(s.id);
      if (m && m.kind !== 'create') {
        this.issues.set(s.id, { issue: m.issue, managed: m.kind === 'marker', fresh: false });
      }
    }
    for (const s of toCreate) {
      await this.createStoryIssue(s);
    }

    this.progress('Reading sub-issues and dependencies…');
    const children = await Promise.all(this.parents.map(async (p) => ({ part: p.part, issue: p.issue, children: p.fresh ? [] : (await this.port.listSubIssues(p.issue.number)).map((c) => c.id) })));
    const blockedBy = this.dependencies === 'native' ? await this.readBlockedBy() : 'unsupported';
    const links = planLinks({ feature: this.feature, stories: this.stories, issues: this.issues, parents: children.sort((a, b) => a.part - b.part), blockedBy });
    this.notes.push(...links.notes);
    this.planned += links.ops.length;
    for (const op of links.ops) {
      await this.apply(op);
    }
    this.progress('Done');
    return this.report();
  }

  /** Stories left out of this publish (their issue moved to another repository). */
  private readonly skipped = new Set<string>();

  private async ensureLabels(): Promise<void> {
    const have = new Set((await this.port.listLabels()).map((l) => l.name));
    for (const spec of LABEL_SPECS.filter((l) => !have.has(l.name))) {
      await this.write(`create the label "${spec.name}"`, () => this.port.createLabel(spec));
    }
  }

  /** The issues stories' `issue` fields name that the `ralph` listing did not hold. */
  private async readFieldIssues(labelled: readonly IssueSeen[]): Promise<Map<number, IssueSeen>> {
    const listed = new Set(labelled.map((i) => i.number));
    const out = new Map<number, IssueSeen>();
    for (const s of this.stories) {
      const n = s.fieldIssues[0];
      if (n === undefined || listed.has(n) || out.has(n)) {
        continue;
      }
      try {
        const issue = await this.port.getIssueFull(n);
        if (issue.isPullRequest) {
          this.notes.push(`${s.id}: prd.json names #${n}, which is a pull request: the story gets an issue of its own.`);
        } else if (this.elsewhere(issue.repositoryUrl)) {
          this.skipped.add(s.id);
          this.notes.push(`${s.id}: #${n} now belongs to another repository (${issue.repositoryUrl}): not published; point its issue field at an issue of this repository or remove it.`);
        } else {
          out.set(n, seen(issue));
        }
      } catch (e) {
        const kind = (e as { kind?: string }).kind;
        if (kind === 'moved') {
          this.skipped.add(s.id);
          const where = (e as { location?: string }).location;
          this.notes.push(`${s.id}: #${n} was transferred${where ? ` (${where})` : ''}: not published; update its issue field in prd.json, or remove it to publish a new issue.`);
        } else if (kind === 'gone' || kind === 'not-found') {
          this.notes.push(`${s.id}: #${n} ${kind === 'gone' ? 'was deleted' : 'does not exist'} on GitHub: the story gets a new issue, and prd.json's issue field says its number.`);
        } else {
          throw e;
        }
      }
    }
    for (const id of this.skipped) {
      const i = this.stories.findIndex((s) => s.id === id);
      if (i >= 0) {
        this.stories.splice(i, 1);
      }
    }
    return out;
  }

  /** One parent per 100 stories; part 1 lists the others. */
  private async ensureParents(parts: number): Promise<void> {
    for (let part = parts; part >= 1; part--) {
      if (this.parents.some((p) => p.part === part)) {
        continue;
      }
      const content = featureIssueContent(this.feature, part, this.partCounts());
      const issue = await this.write(`create the parent issue "${content.title}"`, () => this.port.createIssue({ title: content.title, body: content.body, labels: [RALPH_LABEL] }));
      this.parents.push({ part, issue: issue ? seen(issue) : this.fake(content.title, content.body), fresh: true });
    }
    const first = this.parents.find((p) => p.part === 1);
    const want = featureIssueContent(this.feature, 1, this.partCounts());
    if (first && !first.fresh && first.issue.body !== want.body) {
      await this.write(`update the parent issue #${first.issue.number}: the list of its parts`, () => this.port.updateIssue(first.issue.number, { body: want.body }));
    }
  }

  private partCounts(): { stories: number; parts: number[] } {
    return { stories: this.stories.length, parts: this.parents.filter((p) => p.part > 1).sort((a, b) => a.part - b.part).map((p) => p.issue.number) };
  }

  /** Where GitHub has no dependencies API (older GitHub Enterprise Server: a 404), bodies list "Blocked by #n". */
  private async probeDependencies(): Promise<void> {
    const probe = this.parents.find((p) => p.issue.number > 0);
    if (!probe) {
      return;
    }
    try {
      await this.port.listBlockedBy(probe.issue.number);
    } catch (e) {
      if ((e as { kind?: string }).kind !== 'not-found') {
        throw e;
      }
      this.dependencies = 'body-list';
      this.notes.push('This GitHub has no issue dependencies API (it answered 404): each story\'s issue lists "Blocked by #n" in its text instead.');
    }
  }

  private async createStoryIssue(s: StoryToPublish): Promise<void> {
    const numbers = this.dependencies === 'body-list' ? s.dependencies.map((d) => this.issues.get(d)?.issue.number).filter((n): n is number => n !== undefined && n > 0) : undefined;
    const content = storyIssueContent(s, s.status, this.feature, numbers);
    const issue = await this.write(`create an issue for ${s.id}: "${content.title}"`, () => this.port.createIssue({ title: content.title, body: content.body, labels: [RALPH_LABEL, content.stateLabel] }));
    const made = issue ? seen(issue) : this.fake(content.title, content.body, [RALPH_LABEL, content.stateLabel]);
    this.issues.set(s.id, { issue: made, managed: true, fresh: true });
    if (issue) {
      this.created.push({ storyId: s.id, number: issue.number });
    }
  }

  /** Each story issue's "blocked by" list (a fresh issue has none: not read). */
  private async readBlockedBy(): Promise<Map<number, DependencySeen[]>> {
    const out = new Map<number, DependencySeen[]>();
    for (const { issue, fresh } of this.issues.values()) {
      if (fresh || issue.number <= 0) {
        continue;
      }
      this.checkCancel();
      const deps = await this.port.listBlockedBy(issue.number);
      out.set(issue.number, deps.map((d) => ({ id: d.id, number: d.number, foreign: this.elsewhere(d.repositoryUrl) })));
    }
    return out;
  }

  private async apply(op: LinkOp): Promise<void> {
    const line = describeOp(op).replace(/#-\d+/g, 'its new issue');
    switch (op.kind) {
      case 'update':
        await this.write(line, () => this.port.updateIssue(op.number, { ...op.patch, labels: op.patch.labels ? [...op.patch.labels] : undefined }));
        return;
      case 'addSubIssue':
        await this.write(line, () => this.port.addSubIssue(op.parent, op.childId));
        return;
      case 'addBlockedBy':
        await this.write(line, () => this.port.addBlockedBy(op.number, op.blockerId));
        return;
      case 'removeBlockedBy':
        await this.write(line, () => this.port.removeBlockedBy(op.number, op.blockerId));
        return;
    }
  }

  /** One write (or, in a dry run, its line only); undefined in a dry run. */
  private async write<T>(line: string, send: () => Promise<T>): Promise<T | undefined> {
    this.checkCancel();
    this.writes.push(line);
    this.progress(line);
    return this.options.dryRun ? undefined : send();
  }

  /** An issue of another repository (GitHub spells owner and name in any case). */
  private elsewhere(repositoryUrl: string | undefined): boolean {
    const here = this.options.repository;
    // The host part differs between github.com and an Enterprise Server's /api/v3: compare the path's end.
    return here !== undefined && repositoryUrl !== undefined && !repositoryUrl.toLowerCase().endsWith(`/repos/${here.toLowerCase()}`);
  }

  private checkCancel(): void {
    if (this.options.signal?.aborted) {
      throw new Error('cancelled');
    }
  }

  private progress(message: string): void {
    this.options.onProgress?.({ message, done: this.writes.length, total: Math.max(this.planned, this.writes.length) });
  }

  /** A dry run's stand-in for an issue it would create (negative number and id: never sent). */
  private fake(title: string, body: string, labels: readonly string[] = [RALPH_LABEL]): IssueSeen {
    this.fakeNumber--;
    return { number: this.fakeNumber, id: this.fakeNumber, title, body, state: 'open', labels };
  }
}

function seen(i: PublishIssue): IssueSeen {
  return { number: i.number, id: i.id, title: i.title, body: i.body, state: i.state, labels: i.labels, ...(i.author ? { author: i.author } : {}) };
}

