/** The blockedBy graph of a PRD: edges from a story to the stories it waits on. */
import type { Adjacency } from '../graph';
import type { Story } from './model';

export interface StoryGraph {
  /** Index in `stories` of the first story with each id (later duplicates are not addressable). */
  readonly byId: ReadonlyMap<string, number>;
  /** adj[i] = indices (into `stories`) of known stories that story i waits on, self-loops excluded. */
  readonly adj: Adjacency;
  /** dependents[i] = indices of stories that wait on story i. */
  readonly dependents: Adjacency;
}

export function buildStoryGraph(stories: readonly Story[]): StoryGraph {
  const byId = new Map<string, number>();
  stories.forEach((s, i) => {
    if (!byId.has(s.id)) {
      byId.set(s.id, i);
    }
  });
  const adj: number[][] = stories.map(() => []);
  const dependents: number[][] = stories.map(() => []);
  stories.forEach((s, i) => {
    const out = adj[i];
    for (const ref of s.blockedBy) {
      const j = byId.get(ref.id);
      // blockedBy lists are short: a linear duplicate check beats a Set per story.
      if (j === undefined || j === i || out.includes(j)) {
        continue;
      }
      out.push(j);
      dependents[j].push(i);
    }
  });
  return { byId, adj, dependents };
}
