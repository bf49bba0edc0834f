/** Validation of a parsed PRD beyond its schema: ids and the blockedBy graph. */
import { coveringCycles, cyclicComponents } from '../graph';
import type { PrdDocument, Story } from './document';
import { buildStoryGraph, type StoryGraph } from './graph';
import type { Problem, ProblemFix } from './problems';

export interface Validation {
  readonly problems: readonly Problem[];
  readonly graph: StoryGraph;
  /** Cycles (story ids, first repeated last) covering every cyclic component. */
  readonly cycles: readonly (readonly string[])[];
}

export function validatePrd(doc: PrdDocument): Validation {
  const stories = doc.stories;
  const graph = buildStoryGraph(stories);
  const problems: Problem[] = [...doc.problems];

  // Duplicate ids: every later occurrence is reported, pointing back at the first.
  stories.forEach((s, i) => {
    const first = graph.byId.get(s.id);
    if (s.id !== '' && first !== undefined && first !== i) {
      problems.push({
        code: 'duplicate-id',
        severity: 'error',
        message: `Duplicate story id "${s.id}": it is already used by the story at line ${stories[first].idRange.start.line + 1}. Story ids must be unique.`,
        range: s.idRange,
        storyId: s.id,
        storyIndex: s.index,
      });
    }
  });

  for (const s of stories) {
    for (const ref of s.blockedBy) {
      if (ref.id === s.id && s.id !== '') {
        problems.push({
          code: 'self-dependency',
          severity: 'error',
          message: `Story "${s.id}" is blocked by itself, so it can never become ready.`,
          range: ref.range,
          storyId: s.id,
          storyIndex: s.index,
          fixes: [removeFix(s, ref.id, ref.elementIndex)],
        });
      } else if (!graph.byId.has(ref.id)) {
        const who = `Story "${s.id || `#${s.index + 1}`}"`;
        problems.push({
          code: 'unknown-blocked-by',
          severity: 'error',
          // An empty entry is what a user has while typing a new id: say so, not `blocked by ""`.
          message: ref.id === ''
            ? `${who} has an empty entry in its blockedBy list: write the id of the story it waits on, or remove the entry.`
            : `${who} is blocked by "${ref.id}", which is not a story in this file${suggestion(ref.id, graph)}.`,
          range: ref.range,
          storyId: s.id || undefined,
          storyIndex: s.index,
          fixes: [removeFix(s, ref.id, ref.elementIndex)],
        });
      }
    }
  }

  const cycles: string[][] = [];
  for (const component of cyclicComponents(graph.adj)) {
    for (const cycle of coveringCycles(graph.adj, component)) {
      // Shown in run order (A → B: B waits on A), the reverse of the waits-on edges we walked.
      const ids = cycle.map((i) => stories[i].id).reverse();
      cycles.push(ids);
      const path = ids.join(' → ');
      const edges: { from: Story; to: Story }[] = [];
      for (let k = 0; k + 1 < cycle.length; k++) {
        edges.push({ from: stories[cycle[k]], to: stories[cycle[k + 1]] });
      }
      const fixes = edges.map(({ from, to }) => {
        const ref = from.blockedBy.find((r) => r.id === to.id);
        return removeFix(from, to.id, ref ? ref.elementIndex : -1, `Break the cycle: remove "${to.id}" from the blockedBy of "${from.id}"`);
      });
      const others = component.length > cycle.length - 1 ? ` (${component.length} stories are tangled in this group of cycles)` : '';
      for (const { from, to } of edges) {
        const ref = from.blockedBy.find((r) => r.id === to.id);
        problems.push({
          code: 'cycle',
          severity: 'error',
          message: `Dependency cycle: ${path} (each story waits on the one before it). None of them can become ready${others}.`,
          range: ref ? ref.range : from.idRange,
          storyId: from.id,
          storyIndex: from.index,
          cycle: ids,
          fixes,
        });
      }
    }
  }

  problems.sort((a, b) => a.range.offset - b.range.offset);
  return { problems, graph, cycles };
}

function removeFix(story: Story, blockedId: string, elementIndex: number, title?: string): ProblemFix {
  return {
    kind: 'remove-blocked-by',
    title: title ?? `Remove "${blockedId}" from the blockedBy of "${story.id || `story #${story.index + 1}`}"`,
    storyIndex: story.index,
    blockedId,
    elementIndex,
  };
}

/** " (did you mean "US-003"?)" when an id differs from a known one only by case, spaces or zero padding. */
function suggestion(id: string, graph: StoryGraph): string {
  const norm = (x: string): string => x.toLowerCase().replace(/[\s_-]+/g, '').replace(/(\D)0+(\d)/g, '$1$2');
  const key = norm(id);
  for (const known of graph.byId.keys()) {
    if (norm(known) === key) {
      return ` (did you mean "${known}"?)`;
    }
  }
  return '';
}
