/**
 * The Runs view's grouping (issue 19): a parallel loop's runs under the loop, by wave
 * ("Wave 1 (3 stories: 2 merged, 1 conflict)"), each run saying what became of its work (merged
 * <short sha>, conflict, check failed); a serial loop's runs stay rows of their own. Pure: the view
 * (src/views/runsTree.ts) draws it. Every run is in exactly one place (a property test holds it).
 */
import type { MergeResult, ParallelRunFields, RunRecord } from './runs';

export interface WaveGroup {
  /** The wave as recorded (0: ready when the loop began); shown 1-based, as the task graph does. */
  readonly wave: number;
  /** "Wave 1 (3 stories: 2 merged, 1 conflict)". */
  readonly label: string;
  /** Indexes into the runs, newest first. */
  readonly runs: readonly number[];
}

export type RunGroup =
  | { readonly kind: 'run'; readonly index: number }
  | { readonly kind: 'loop'; readonly loopId: string; readonly label: string; readonly start: string; readonly waves: readonly WaveGroup[] };

/** What became of a story's work, in the order the wave's label counts them. */
const WORDS: Record<MergeResult | 'none', string> = { merged: 'merged', conflict: 'conflict', 'check-failed': 'check failed', error: 'merge error', none: 'not merged' };
const ORDER: readonly (MergeResult | 'none')[] = ['merged', 'conflict', 'check-failed', 'error', 'none'];

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The run row's merge outcome: "merged 1a2b3c4", "conflict", "check failed", "merge error"; undefined when no merge was tried. */
export function mergeText(p: ParallelRunFields | undefined): string | undefined {
  if (!p?.merge) {
    return undefined;
  }
  return p.merge === 'merged' && p.mergeCommit ? `merged ${p.mergeCommit.slice(0, 7)}` : WORDS[p.merge];
}

/** "Wave 2 (3 stories: 2 merged, 1 conflict)": each story counted once, by its latest run in the wave. */
function waveLabel(wave: number, runs: readonly RunRecord[], indexes: readonly number[]): string {
  const latest = new Map<string, MergeResult | 'none'>();
  for (const i of [...indexes].sort((a, b) => a - b)) {
    latest.set(runs[i].storyId, runs[i].parallel?.merge ?? 'none');
  }
  const counts = ORDER.map((o) => [o, [...latest.values()].filter((v) => v === o).length] as const).filter(([, n]) => n > 0);
  return `Wave ${wave + 1} (${plural(latest.size, 'story', 'stories')}: ${counts.map(([o, n]) => `${n} ${WORDS[o]}`).join(', ')})`;
}

/**
 * The top level of the Runs view, newest first: a serial run as itself, a parallel loop once, at
 * the place of its newest run, holding its waves in order and each wave's runs newest first.
 */
export function groupRuns(runs: readonly RunRecord[]): RunGroup[] {
  const byLoop = new Map<string, number[]>();
  runs.forEach((r, i) => {
    if (r.parallel) {
      byLoop.set(r.loopId, [...(byLoop.get(r.loopId) ?? []), i]);
    }
  });
  const out: RunGroup[] = [];
  const shown = new Set<string>();
  for (let i = runs.length - 1; i >= 0; i--) {
    const r = runs[i];
    if (!r.parallel) {
      out.push({ kind: 'run', index: i });
      continue;
    }
    if (shown.has(r.loopId)) {
      continue;
    }
    shown.add(r.loopId);
    const members = byLoop.get(r.loopId) ?? [];
    const waves = [...new Set(members.map((k) => runs[k].parallel?.wave ?? 0))].sort((a, b) => a - b);
    out.push({
      kind: 'loop',
      loopId: r.loopId,
      label: `Parallel loop (${plural(waves.length, 'wave')}, ${plural(members.length, 'run')})`,
      start: members.map((k) => runs[k].start).sort()[0] ?? r.start,
      waves: waves.map((wave) => {
        const inWave = members.filter((k) => (runs[k].parallel?.wave ?? 0) === wave).reverse();
        return { wave, label: waveLabel(wave, runs, inWave), runs: inWave };
      }),
    });
  }
  return out;
}
