/**
 * Fallback discovery by file name: `thoughts/shared/{research,plans,reviews}/*GH-<n>*`, the
 * number padded (`GH-0042`) or not (`GH-42`); `GH-420` is another issue. Group plans
 * (`…-group-GH-NNNN-…`) are plans of kind `group-plan`. Pure: the caller lists the folders.
 */
import type { ArtifactKind } from './protocol';

export const ARTIFACT_DIRS = {
  research: 'thoughts/shared/research',
  plans: 'thoughts/shared/plans',
  reviews: 'thoughts/shared/reviews',
} as const;

export type ArtifactDir = keyof typeof ARTIFACT_DIRS;

export interface DiskArtifact {
  readonly kind: ArtifactKind;
  /** Relative to the workspace root, `/`-separated. */
  readonly path: string;
}

const GH_RE = /GH-(\d{1,9})(?!\d)/gi;

/** The issue numbers a file name mentions (`GH-0042` → 42). */
export function issueNumbersIn(name: string): number[] {
  const out: number[] = [];
  for (const m of name.matchAll(GH_RE)) {
    out.push(Number.parseInt(m[1], 10));
  }
  return out;
}

function kindOf(dir: ArtifactDir, name: string): ArtifactKind {
  if (dir === 'research') {
    return 'research';
  }
  if (dir === 'reviews') {
    return 'review';
  }
  return /(^|[-_.])group[-_]/i.test(name) ? 'group-plan' : 'plan';
}

/**
 * The artifacts on disk for an issue, newest first within a kind (file names start with the
 * date, so the greatest name is the most recent).
 */
export function discoverOnDisk(issue: number, listing: Readonly<Partial<Record<ArtifactDir, readonly string[]>>>): DiskArtifact[] {
  const out: DiskArtifact[] = [];
  for (const dir of Object.keys(ARTIFACT_DIRS) as ArtifactDir[]) {
    const names = [...(listing[dir] ?? [])].filter((n) => issueNumbersIn(n).includes(issue)).sort().reverse();
    for (const name of names) {
      out.push({ kind: kindOf(dir, name), path: `${ARTIFACT_DIRS[dir]}/${name}` });
    }
  }
  return out;
}

/** Issue number and kind of a workspace-relative artifact path ("Link to Issue"), if it is one. */
export function artifactOfPath(path: string): { issue: number; kind: ArtifactKind } | undefined {
  const p = path.replace(/\\/g, '/');
  for (const dir of Object.keys(ARTIFACT_DIRS) as ArtifactDir[]) {
    const prefix = `${ARTIFACT_DIRS[dir]}/`;
    if (p.startsWith(prefix) && !p.slice(prefix.length).includes('/')) {
      const name = p.slice(prefix.length);
      const n = issueNumbersIn(name);
      return n.length > 0 ? { issue: n[0], kind: kindOf(dir, name) } : undefined;
    }
  }
  return undefined;
}
