/**
 * Minimal text edits to prd.json (jsonc-parser `modify`): only the touched value changes, so
 * formatting, key order and unknown fields are kept. The host applies them as a WorkspaceEdit.
 */
import { type EditResult, modify } from 'jsonc-parser';

export interface TextEdit {
  readonly offset: number;
  readonly length: number;
  readonly content: string;
}

export function setPassesEdits(text: string, storyIndex: number, passes: boolean): TextEdit[] {
  return modify(text, ['userStories', storyIndex, 'passes'], passes, { formattingOptions: formattingOf(text) });
}

export function removeBlockedByEdits(text: string, storyIndex: number, elementIndex: number): TextEdit[] {
  return modify(text, ['userStories', storyIndex, 'blockedBy', elementIndex], undefined, {
    formattingOptions: formattingOf(text),
  });
}

export function applyEdits(text: string, edits: EditResult): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.offset - a.offset)) {
    out = out.slice(0, e.offset) + e.content + out.slice(e.offset + e.length);
  }
  return out;
}

/** Indentation and line ending as the file already uses them. */
export function formattingOf(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const m = /\n([ \t]+)\S/.exec(text);
  if (m && m[1].startsWith('\t')) {
    return { insertSpaces: false, tabSize: 1, eol };
  }
  return { insertSpaces: true, tabSize: m ? Math.min(m[1].length, 8) : 2, eol };
}
