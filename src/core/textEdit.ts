/** A text edit by offsets, as the core computes them; the host turns them into WorkspaceEdits. */
export interface TextEdit {
  readonly offset: number;
  readonly length: number;
  readonly content: string;
}

/** Applies edits (any order, non-overlapping) to a text. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.offset - a.offset)) {
    out = out.slice(0, e.offset) + e.content + out.slice(e.offset + e.length);
  }
  return out;
}
