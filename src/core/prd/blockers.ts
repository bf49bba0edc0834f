/**
 * Which stories a story may wait on. THE rule: the add-dependency edit (graphEdits.ts) refuses
 * with it, and the "Add blocker…" pick offers only what it accepts and says why the others are
 * missing, so the pick never offers a story the edit would then refuse.
 */
import type { PrdAnalysis } from './index';
import type { Story } from './model';
import { shortId } from './problems';
import { cycleCloser } from './schedule';

/** Why `story` cannot wait on `blocker`. `cycle` holds story indices: story → … → blocker → story. */
export type BlockerRefusal = { readonly kind: 'no-id' } | { readonly kind: 'already' } | { readonly kind: 'cycle'; readonly cycle: readonly number[] };

/**
 * Why `story` may not wait on `blocker` (at `blockerAt` in the analysis's story list), or undefined
 * when it may. `closes` answers which cycle the new edge would close (`cycleCloser` of the story,
 * by positions in the same list). Waiting on itself is a cycle.
 */
export function blockerRefusal(story: Story, blocker: Story, blockerAt: number, closes: (blockerAt: number) => readonly number[] | undefined): BlockerRefusal | undefined {
  if (blocker.idDerived) {
    return { kind: 'no-id' };
  }
  if (story.blockedBy.some((r) => r.id === blocker.id)) {
    return { kind: 'already' };
  }
  const cycle = closes(blockerAt);
  return cycle ? { kind: 'cycle', cycle } : undefined;
}

/** What "Add blocker…" offers for one story: the stories it accepts, and the ids it leaves out by reason. */
export interface BlockerOffer {
  readonly story: Story;
  /** In file order; one story per id (the first, as the graph shows it). */
  readonly offered: readonly Story[];
  readonly refused: { readonly [K in BlockerRefusal['kind']]: readonly string[] };
}

/** The offer for the story with this id (the first story with it), or undefined when there is none. */
export function blockerOffer(analysis: PrdAnalysis, storyId: string): BlockerOffer | undefined {
  const stories = analysis.doc.stories;
  const at = stories.findIndex((s) => s.id === storyId);
  if (at < 0) {
    return undefined;
  }
  const story = stories[at];
  const closes = cycleCloser(analysis.readiness.schedule.graph, at);
  const offered: Story[] = [];
  const refused: Record<BlockerRefusal['kind'], string[]> = { cycle: [], already: [], 'no-id': [] };
  const seen = new Set<string>([story.id]);
  for (const [i, s] of stories.entries()) {
    if (seen.has(s.id)) {
      continue; // the story itself, or a later story with an id already seen (the edit addresses the first)
    }
    seen.add(s.id);
    const why = blockerRefusal(story, s, i, closes);
    if (why) {
      refused[why.kind].push(s.id);
    } else {
      offered.push(s);
    }
  }
  return { story, offered, refused };
}

const REASONS: readonly (readonly [BlockerRefusal['kind'], string])[] = [
  ['cycle', 'would make a cycle'],
  ['already', 'already a blocker'],
  ['no-id', 'no id in prd.json'],
];

/** At most this many ids are named per reason; the rest are counted. */
const NAMED = 5;

/**
 * Why stories are missing from the offer, for a person: `3 stories not offered: would make a cycle
 * (US-002, US-005), already a blocker (US-001)`; undefined when every other story is offered.
 */
export function blockerOfferNote(offer: BlockerOffer): string | undefined {
  const parts: string[] = [];
  let total = 0;
  for (const [kind, words] of REASONS) {
    const ids = offer.refused[kind];
    total += ids.length;
    if (ids.length > 0) {
      const named = ids.slice(0, NAMED).map(shortId).join(', ');
      const more = ids.length > NAMED ? `, … ${(ids.length - NAMED).toLocaleString('en-US')} more` : '';
      parts.push(`${words} (${named}${more})`);
    }
  }
  return total === 0 ? undefined : `${total.toLocaleString('en-US')} ${total === 1 ? 'story' : 'stories'} not offered: ${parts.join(', ')}`;
}
