/**
 * GitHub issues as stories (the reading is src/node/github/importIssues.ts, through the client).
 * - id: GH-<number>; title; description: the body; acceptance criteria: the body's checklist items;
 * - passes: the issue is closed; priority: a label P0–P4 or "priority: high|medium|low" (2 else);
 * - blockedBy: the native "blocked by" dependencies (an issue of another repository is written
 *   OWNER/REPO#N, reported by the validator as unknown); sub-issues: the parent waits on them.
 */
import { checklistItems, DEFAULT_PRIORITY, parentsWaitOnChildren, priorityOfWord, storyId } from './text';
import type { ImportedStory, ImportResult, ImportWarning } from './types';

export interface GitHubIssueInput {
  readonly number: number;
  readonly title: string;
  readonly body: string;
  readonly state: 'open' | 'closed';
  readonly labels: readonly string[];
  /** Issues that block this one: a number in the same repository, else "OWNER/REPO#N". */
  readonly blockedBy: readonly (number | string)[];
  readonly subIssues: readonly (number | string)[];
}

/** The first label that is a priority: P0–P4, or "priority: high|medium|low". */
function priorityOfLabels(labels: readonly string[]): number | undefined {
  for (const l of labels) {
    const n = /^p[0-4]$/i.test(l.trim()) ? priorityOfWord(l) : priorityOfWord(/^priority\s*[:/-]\s*(\S+)$/i.exec(l.trim())?.[1]);
    if (n !== undefined) {
      return n;
    }
  }
  return undefined;
}

const ref = (r: number | string): string => (typeof r === 'number' ? storyId('github', r) : r);

export function importGitHubIssues(issues: readonly GitHubIssueInput[], repo: string): ImportResult {
  const warnings: ImportWarning[] = [];
  const byId = new Map<string, ImportedStory>();
  const stories = issues.map((i): ImportedStory => {
    const blockedBy = i.blockedBy.map(ref);
    const story: ImportedStory = {
      id: storyId('github', i.number),
      title: i.title.trim() || `Issue #${i.number}`,
      description: i.body.trim(),
      acceptanceCriteria: checklistItems(i.body),
      priority: priorityOfLabels(i.labels) ?? DEFAULT_PRIORITY,
      passes: i.state === 'closed',
      ...(blockedBy.length > 0 ? { blockedBy } : {}),
      source: { format: 'github', file: repo, id: `#${i.number}` },
    };
    byId.set(story.id, story);
    return story;
  });
  const links = issues.flatMap((i) => i.subIssues.map((child) => ({ parent: storyId('github', i.number), child: ref(child) })));
  for (const l of links) {
    if (l.child.includes('/')) {
      warnings.push({ message: `${l.parent}: sub-issue ${l.child} is in another repository: the parent waits on it as an unknown id` });
    }
  }
  parentsWaitOnChildren(byId, links, () => undefined);
  return { format: 'github', stories, warnings };
}
