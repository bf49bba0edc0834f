/** Validation of a parsed PRD beyond its fields: ids and the dependency graph. */
import { coveringCycles, cyclicComponents } from '../graph';
import type { PrdDocument, Story } from './model';
import { buildStoryGraph, type StoryGraph } from './graph';
import { type CycleEdge, formatCycle, type Problem, type ProblemFix, type RemoveDependencyFix, shortId } from './problems';
import type { BlockedByRef } from './model';

export interface Validation {
  readonly problems: readonly Problem[];
  readonly graph: StoryGraph;
  /** Cycles (story ids, first repeated last) covering every cyclic component. */
  readonly cycles: readonly (readonly string[])[];
}

/** Cycles with at most this many dependencies offer one quick fix per dependency on the cycle's problem. */
const CYCLE_FIXES = 10;

export function validatePrd(doc: PrdDocument): Validation {
  const stories = doc.stories;
  const graph = buildStoryGraph(stories);
  const problems: Problem[] = [...doc.problems];

  // Duplicate ids: every later occurrence is reported, pointing back at the first.
  stories.forEach((s, i) => {
    const first = graph.byId.get(s.id);
    if (first !== undefined && first !== i) {
      problems.push({
        code: 'duplicate-id',
        severity: 'error',
        message: `Duplicate story id "${shortId(s.id)}": it is already used by the story at line ${stories[first].idRange.start.line + 1}. Story ids must be unique.`,
        range: s.idRange,
        storyId: s.id,
        storyIndex: s.index,
      });
    }
  });

  const near = nearIds(graph);
  for (const s of stories) {
    for (const ref of s.blockedBy) {
      if (ref.id === s.id) {
        problems.push({
          code: 'self-dependency',
          severity: 'error',
          message: `Story "${shortId(s.id)}" is blocked by itself, so it can never become ready.`,
          range: ref.range,
          storyId: s.id,
          storyIndex: s.index,
          fixes: [removeFix(s, ref)],
        });
      } else if (!graph.byId.has(ref.id)) {
        const suggestion = ref.id === '' ? undefined : near(ref.id);
        const fixes: ProblemFix[] = [];
        if (suggestion !== undefined) {
          fixes.push({ ...dependencyEdit(s, ref, `Change to "${shortId(suggestion)}"`), kind: 'replace-blocked-by', replacement: suggestion });
        }
        fixes.push(removeFix(s, ref));
        problems.push({
          code: 'unknown-blocked-by',
          severity: 'error',
          // An empty entry is what a user has while typing a new id: say so, not `blocked by ""`.
          message: ref.id === ''
            ? `Story "${shortId(s.id)}" has an empty entry in its dependency list: write the id of the story it waits on, or remove the entry.`
            : `Story "${shortId(s.id)}" is blocked by "${shortId(ref.id)}", which is not a story in ${doc.fileName}${suggestion !== undefined ? ` (did you mean "${shortId(suggestion)}"?)` : ''}.`,
          range: ref.range,
          storyId: s.id,
          storyIndex: s.index,
          fixes,
        });
      }
    }
  }

  // One problem per cycle (its path abbreviated when long), placed on its first dependency; the
  // dependencies themselves are listed in `edges` for editors that mark each one.
  const cycles: string[][] = [];
  for (const component of cyclicComponents(graph.adj)) {
    for (const cycle of coveringCycles(graph.adj, component)) {
      // Shown in run order (A → B: B waits on A), the reverse of the waits-on edges we walked.
      const ids = cycle.map((i) => stories[i].id).reverse();
      cycles.push(ids);
      const edges: CycleEdge[] = [];
      for (let k = 0; k + 1 < cycle.length; k++) {
        const from = stories[cycle[k]];
        const to = stories[cycle[k + 1]];
        const ref = from.blockedBy.find((r) => r.id === to.id) as BlockedByRef;
        edges.push({
          storyId: from.id,
          storyIndex: from.index,
          waitsOn: to.id,
          range: ref.range,
          fix: removeFix(from, ref, `Break the cycle: remove "${shortId(to.id)}" from the ${ref.key} of "${shortId(from.id)}"`),
        });
      }
      // The edge read first in the file carries the problem.
      const first = edges.reduce((a, b) => (b.range.offset < a.range.offset ? b : a));
      const size = cycle.length - 1;
      const others = component.length > size ? ` (${component.length.toLocaleString('en-US')} stories are tangled in this group of cycles)` : '';
      problems.push({
        code: 'cycle',
        severity: 'error',
        message: `Dependency cycle${size > 3 ? ` of ${size.toLocaleString('en-US')} stories` : ''}: ${formatCycle(ids)} (each story waits on the one before it). None of them can become ready${others}.`,
        range: first.range,
        storyId: first.storyId,
        storyIndex: first.storyIndex,
        cycle: ids,
        edges,
        fixes: edges.length <= CYCLE_FIXES ? [first.fix, ...edges.filter((e) => e !== first).map((e) => e.fix)] : [first.fix],
      });
    }
  }

  problems.sort((a, b) => a.range.offset - b.range.offset);
  return { problems, graph, cycles };
}

/**
 * True exactly when validatePrd would add no problem to the document's own: every id unique,
 * every dependency a known other story, no cycle. Linear, and it builds no message, no
 * suggestion index and no cycle path: the check `next` and `ready` make before deciding whether
 * the file needs positions (test/unit/properties.test.ts holds it to validatePrd).
 */
export function graphIsClean(stories: readonly Story[], graph: StoryGraph): boolean {
  if (graph.byId.size !== stories.length) {
    return false;
  }
  for (const s of stories) {
    for (const ref of s.blockedBy) {
      if (ref.id === s.id || !graph.byId.has(ref.id)) {
        return false;
      }
    }
  }
  return cyclicComponents(graph.adj).length === 0;
}

function dependencyEdit(story: Story, ref: BlockedByRef, title: string): Omit<RemoveDependencyFix, 'kind'> {
  return { title, storyIndex: story.index, storyPath: story.path, key: ref.key, blockedId: ref.id, elementIndex: ref.elementIndex };
}

function removeFix(story: Story, ref: BlockedByRef, title?: string): RemoveDependencyFix {
  return { kind: 'remove-blocked-by', ...dependencyEdit(story, ref, title ?? `Remove "${shortId(ref.id)}" from the ${ref.key} of "${shortId(story.id)}"`) };
}

/**
 * "Did you mean": the known id that differs from an unknown one only by case, spaces, `-`/`_` or
 * zero padding. Known ids are indexed once by that normalized form, so each look-up is one hash
 * probe (10,000 unknown ids against 10,000 stories: linear, not 10⁸ comparisons).
 */
function nearIds(graph: StoryGraph): (id: string) => string | undefined {
  const norm = (x: string): string => x.toLowerCase().replace(/[\s_-]+/g, '').replace(/(\D)0+(\d)/g, '$1$2').replace(/^0+(\d)/, '$1');
  let index: Map<string, string> | undefined;
  return (id) => {
    if (!index) {
      index = new Map();
      for (const known of graph.byId.keys()) {
        const k = norm(known);
        if (!index.has(k)) {
          index.set(k, known);
        }
      }
    }
    return index.get(norm(id));
  };
}
