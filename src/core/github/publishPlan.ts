/**
 * What a publish changes on GitHub (issue 20), decided from what is there: pure, so a dry run and
 * a real run decide alike, and a second publish with nothing changed plans no write.
 *
 * A publish runs in two steps (src/node/github/publish.ts). First every story gets an issue: found
 * by its marker among the issues labelled `ralph`, or by the story's `issue` field, else created
 * (`planIssues`). Then, every number known, each issue is brought to what the story says — title,
 * body, labels, open or closed — and linked: a sub-issue of the feature's parent, "blocked by" the
 * issues of its blockers (`planLinks`). An issue someone edited by hand (no marker: linked through
 * the story's `issue` field) keeps its title and body: the difference is reported, not written.
 * A dependency on an issue that is not one of the feature's stories (another repository's, or one
 * a person added) is kept and reported; only dependencies between story issues are removed.
 */
import { DEFAULT_TRUST, type TrustRules, untrustedAuthor } from '../artifacts/trust';
import { labelsFor, sameLabels, storyIdOfBody, storyMarkerOfBody, storyIssueContent, SUB_ISSUES_PER_PARENT, featureOfBody, type StoryForIssue, type StoryIssueState } from './storyIssue';

/** An issue as the publisher read it. */
export interface IssueSeen {
  readonly number: number;
  /** The database id: what sub-issue and dependency requests take. */
  readonly id: number;
  readonly title: string;
  readonly body: string;
  readonly state: 'open' | 'closed';
  readonly labels: readonly string[];
  /** Who opened it (`user.login`, `author_association`): whose marker may count. Absent: not known, not trusted. */
  readonly author?: { readonly login: string; readonly association: string };
}

export interface StoryToPublish extends StoryForIssue {
  /** Readiness in prd.json: ready, blocked (waits on a story that does not pass) or done. */
  readonly status: StoryIssueState;
  /** The ids of the stories it waits on, in blockedBy order. */
  readonly dependencies: readonly string[];
  /** The issue numbers its `issue` field names (first one is its issue). */
  readonly fieldIssues: readonly number[];
}

/** How each story finds its issue. */
export type IssueMatch =
  /** An issue carries its marker (ours). */
  | { readonly kind: 'marker'; readonly issue: IssueSeen }
  /** Its `issue` field names an issue without our marker: linked, its text left alone. */
  | { readonly kind: 'linked'; readonly issue: IssueSeen }
  /** No issue yet: one is created. */
  | { readonly kind: 'create' };

export interface IssuesPlan {
  readonly matches: ReadonlyMap<string, IssueMatch>;
  /** Feature parents found, by part (1 first). */
  readonly parents: ReadonlyMap<number, IssueSeen>;
  /** How many parents the stories need (one per 100). */
  readonly partsNeeded: number;
  /** Things the user should know: duplicate markers, a field naming a story issue of another story, … */
  readonly notes: readonly string[];
}

/**
 * Which story has which issue. `labelled` is every issue labelled `ralph` (all states); `byField`
 * the issues the stories' `issue` fields name that were not among them (read one by one).
 */
export function planIssues(stories: readonly StoryToPublish[], feature: string, labelled: readonly IssueSeen[], byField: ReadonlyMap<number, IssueSeen>, trust: TrustRules = DEFAULT_TRUST): IssuesPlan {
  const notes: string[] = [];
  const ignored = new Set<number>();
  /** The body's marker counts only when a trusted author opened the issue (only they, and people with write access, can edit its text). */
  const trustedBody = (issue: IssueSeen): string => {
    const marker = storyMarkerOfBody(issue.body) ?? featureOfBody(issue.body);
    const refusal = marker && untrustedAuthor({ author: issue.author?.login, authorAssociation: issue.author?.association }, trust, "mark an issue as a story's");
    if (!marker || refusal === undefined) {
      return issue.body;
    }
    if (!ignored.has(issue.number)) {
      ignored.add(issue.number);
      const what = 'storyId' in marker ? `the marker of ${marker.storyId}` : `the marker of the feature ${marker.branch}`;
      notes.push(`#${issue.number} carries ${what}, but its author ${refusal}: the marker is ignored (the issue counts as written by hand).`);
    }
    return '';
  };
  const byMarker = new Map<string, IssueSeen>();
  const parents = new Map<number, IssueSeen>();
  for (const issue of [...labelled].sort((a, b) => a.number - b.number)) {
    const body = trustedBody(issue);
    const marker = storyMarkerOfBody(body);
    if (marker !== undefined && marker.feature !== undefined && marker.feature !== feature) {
      continue; // another feature's story of the same id: never this one's issue
    }
    const storyId = marker?.storyId;
    if (storyId !== undefined) {
      const first = byMarker.get(storyId);
      if (first) {
        notes.push(`#${issue.number} carries the marker of ${storyId} too (its issue is #${first.number}): left alone; close it if it is a copy.`);
      } else {
        byMarker.set(storyId, issue);
      }
      continue;
    }
    const f = featureOfBody(body);
    if (f && f.branch === feature && !parents.has(f.part)) {
      parents.set(f.part, issue);
    }
  }
  const known = new Map<number, IssueSeen>([...labelled.map((i) => [i.number, i] as const), ...byField]);
  const matches = new Map<string, IssueMatch>();
  for (const s of stories) {
    const marked = byMarker.get(s.id);
    const field = s.fieldIssues[0];
    if (marked) {
      if (field !== undefined && field !== marked.number) {
        notes.push(`${s.id}: prd.json names issue #${field}, but its published issue is #${marked.number}: prd.json's issue field is set to ${marked.number}.`);
      }
      matches.set(s.id, { kind: 'marker', issue: marked });
      continue;
    }
    const named = field !== undefined ? known.get(field) : undefined;
    const owner = named ? storyIdOfBody(trustedBody(named)) : undefined;
    if (named && owner === s.id) {
      // Our issue of this story that lost its `ralph` label: prd.json names it, so it is still ours.
      matches.set(s.id, { kind: 'marker', issue: named });
    } else if (named && owner === undefined) {
      matches.set(s.id, { kind: 'linked', issue: named });
    } else {
      if (named && owner !== undefined) {
        notes.push(`${s.id}: prd.json names issue #${named.number}, which is ${owner}'s issue: ${s.id} gets an issue of its own.`);
      }
      matches.set(s.id, { kind: 'create' });
    }
  }
  return { matches, parents, partsNeeded: Math.max(1, Math.ceil(stories.length / SUB_ISSUES_PER_PARENT)), notes };
}

/** A dependency as GitHub lists it. */
export interface DependencySeen {
  readonly id: number;
  readonly number: number;
  /** Not in this repository. */
  readonly foreign: boolean;
}

/** What the second step reads: every story's issue, the parents' sub-issues, each issue's "blocked by". */
export interface LinkState {
  readonly feature: string;
  readonly stories: readonly StoryToPublish[];
  /** Each story's issue and whether it is ours (has the marker) or linked by hand. */
  readonly issues: ReadonlyMap<string, { readonly issue: IssueSeen; readonly managed: boolean }>;
  /** Parents in part order, each with the ids of its sub-issues. */
  readonly parents: readonly { readonly part: number; readonly issue: IssueSeen; readonly children: readonly number[] }[];
  /** By issue number; 'unsupported' where GitHub has no dependencies API (older GitHub Enterprise Server). */
  readonly blockedBy: ReadonlyMap<number, readonly DependencySeen[]> | 'unsupported';
}

export type LinkOp =
  | { readonly kind: 'update'; readonly storyId: string; readonly number: number; readonly patch: IssuePatch; readonly why: string }
  | { readonly kind: 'addSubIssue'; readonly storyId: string; readonly parent: number; readonly childId: number }
  | { readonly kind: 'addBlockedBy'; readonly storyId: string; readonly number: number; readonly blockerId: number; readonly blocker: string }
  | { readonly kind: 'removeBlockedBy'; readonly storyId: string; readonly number: number; readonly blockerId: number; readonly blocker: string };

export interface IssuePatch {
  readonly title?: string;
  readonly body?: string;
  readonly state?: 'open' | 'closed';
  readonly stateReason?: 'completed' | 'reopened';
  readonly labels?: readonly string[];
}

export interface LinksPlan {
  readonly ops: readonly LinkOp[];
  readonly notes: readonly string[];
}

/** The writes that bring every issue and link to what prd.json says; none when nothing changed. */
export function planLinks(s: LinkState): LinksPlan {
  const ops: LinkOp[] = [];
  const notes: string[] = [];
  const numberOf = (id: string): number | undefined => s.issues.get(id)?.issue.number;
  const unsupported = s.blockedBy === 'unsupported';
  const storyOfIssueId = new Map<number, string>();
  for (const [storyId, { issue }] of s.issues) {
    storyOfIssueId.set(issue.id, storyId);
  }

  for (const story of s.stories) {
    const found = s.issues.get(story.id);
    if (!found) {
      continue;
    }
    const { issue, managed } = found;
    const blockerNumbers = unsupported ? story.dependencies.map(numberOf).filter((n): n is number => n !== undefined) : undefined;
    const want = storyIssueContent(story, story.status, s.feature, blockerNumbers);
    const patch: { -readonly [K in keyof IssuePatch]: IssuePatch[K] } = {};
    const why: string[] = [];
    if (managed) {
      if (issue.title !== want.title) {
        patch.title = want.title;
        why.push('title');
      }
      if (issue.body !== want.body) {
        patch.body = want.body;
        why.push('text');
      }
    } else if (issue.title !== want.title) {
      notes.push(`${story.id}: #${issue.number} was written by hand (no Ralph Workbench marker): its title and text are left alone (the story's title is "${want.title}", the issue's "${issue.title}").`);
    }
    const labels = labelsFor(issue.labels, want.stateLabel);
    if (!sameLabels(labels, issue.labels)) {
      patch.labels = labels;
      why.push('labels');
    }
    if (issue.state !== want.state) {
      patch.state = want.state;
      patch.stateReason = want.state === 'closed' ? 'completed' : 'reopened';
      why.push(want.state === 'closed' ? 'close: the story passes' : 'reopen: the story does not pass');
    }
    if (why.length > 0) {
      ops.push({ kind: 'update', storyId: story.id, number: issue.number, patch, why: why.join(', ') });
    }

    if (!unsupported) {
      const have = (s.blockedBy as ReadonlyMap<number, readonly DependencySeen[]>).get(issue.number) ?? [];
      const wanted = new Map<number, string>();
      for (const dep of story.dependencies) {
        const blocker = s.issues.get(dep)?.issue;
        if (blocker) {
          wanted.set(blocker.id, dep);
        } else {
          notes.push(`${story.id} waits on ${dep}, which has no issue (not a story of prd.json): no dependency for it.`);
        }
      }
      for (const [blockerId, dep] of wanted) {
        if (!have.some((h) => h.id === blockerId)) {
          ops.push({ kind: 'addBlockedBy', storyId: story.id, number: issue.number, blockerId, blocker: dep });
        }
      }
      for (const h of have) {
        const blockerStory = h.foreign ? undefined : storyOfIssueId.get(h.id);
        if (blockerStory === undefined) {
          notes.push(`${story.id}: #${issue.number} is also blocked by ${h.foreign ? 'an issue of another repository' : 'an issue that is not a story'} (#${h.number}): kept.`);
        } else if (!wanted.has(h.id)) {
          ops.push({ kind: 'removeBlockedBy', storyId: story.id, number: issue.number, blockerId: h.id, blocker: blockerStory });
        }
      }
    }
  }

  // Sub-issues: an issue under one of the feature's parents stays there; the others go to the first part with room.
  const room = s.parents.map((p) => ({ number: p.issue.number, free: SUB_ISSUES_PER_PARENT - p.children.length }));
  const parented = new Set(s.parents.flatMap((p) => p.children));
  for (const story of s.stories) {
    const issue = s.issues.get(story.id)?.issue;
    if (!issue || parented.has(issue.id)) {
      continue;
    }
    const slot = room.find((r) => r.free > 0);
    if (!slot) {
      notes.push(`${story.id}: every parent issue holds ${SUB_ISSUES_PER_PARENT} sub-issues: #${issue.number} is not linked to one.`);
      continue;
    }
    slot.free--;
    ops.push({ kind: 'addSubIssue', storyId: story.id, parent: slot.number, childId: issue.id });
  }
  return { ops, notes };
}

/** One line per write, for the dry run and the log. */
export function describeOp(op: LinkOp): string {
  switch (op.kind) {
    case 'update':
      return `update #${op.number} (${op.storyId}): ${op.why}`;
    case 'addSubIssue':
      return `add ${op.storyId} as a sub-issue of #${op.parent}`;
    case 'addBlockedBy':
      return `${op.storyId} (#${op.number}) blocked by ${op.blocker}`;
    case 'removeBlockedBy':
      return `${op.storyId} (#${op.number}) no longer blocked by ${op.blocker}`;
  }
}
