/**
 * prd.json after a story's worktree is merged: never git's text merge. The main prd.json gets
 * exactly one minimal edit (the story's `passes` set to true, graphEdits.ts), and whatever else
 * the worktree changed in prd.json (other stories, added or removed stories) is left out and
 * reported, because an agent may only finish its own story.
 */
import { parse as parseJsonc } from 'jsonc-parser';
import { parsePrd } from '../prd/document';
import { setPassesByIdEdits } from '../prd/graphEdits';
import type { PrdDocument } from '../prd/model';
import { valueAt } from '../prd/shape';
import type { TextEdit } from '../textEdit';

export type PrdMergePlan =
  | {
      readonly ok: true;
      /** The edits of the main prd.json (none when the story passes there already). */
      readonly edits: TextEdit[];
      /** Other stories the worktree changed, added or removed: not merged. */
      readonly ignored: readonly string[];
    }
  | { readonly ok: false; readonly message: string };

function read(text: string): { doc: PrdDocument; data: unknown } {
  return { doc: parsePrd(text, { positions: false }), data: parseJsonc(text) as unknown };
}

/** Every story of a file by id, as the JSON text of its object (first story of an id). */
function storyTexts(text: string): Map<string, string> {
  const { doc, data } = read(text);
  const out = new Map<string, string>();
  for (const s of doc.stories) {
    if (!s.idDerived && !out.has(s.id)) {
      out.set(s.id, JSON.stringify(valueAt(data, s.path)));
    }
  }
  return out;
}

/** Whether `storyId` passes in this prd.json text. */
export function storyPasses(text: string, storyId: string): boolean {
  return parsePrd(text, { positions: false }).stories.some((s) => s.id === storyId && s.passes);
}

/**
 * The edits of the main prd.json for a merged story, and the other stories the worktree's
 * prd.json changed since `baseText` (the feature branch's prd.json where the worktree started;
 * undefined when it had none: then every other story of the worktree that differs from the main
 * file counts).
 */
export function planPrdMerge(mainText: string, baseText: string | undefined, worktreeText: string, storyId: string): PrdMergePlan {
  if (!storyPasses(worktreeText, storyId)) {
    return { ok: false, message: `${storyId} does not pass in the worktree's prd.json.` };
  }
  const before = storyTexts(baseText ?? mainText);
  const after = storyTexts(worktreeText);
  const ignored: string[] = [];
  for (const [id, json] of after) {
    if (id !== storyId && before.get(id) !== json) {
      ignored.push(id);
    }
  }
  for (const id of before.keys()) {
    if (id !== storyId && !after.has(id)) {
      ignored.push(id);
    }
  }
  if (storyPasses(mainText, storyId)) {
    return { ok: true, edits: [], ignored };
  }
  const set = setPassesByIdEdits(mainText, storyId, true);
  if (!set.ok) {
    return { ok: false, message: `The main prd.json: ${set.message}` };
  }
  return { ok: true, edits: set.edits, ignored };
}
