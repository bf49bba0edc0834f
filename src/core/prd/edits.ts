/**
 * Minimal text edits to prd.json (jsonc-parser `modify`): only the touched value changes, so
 * formatting, key order and unknown fields are kept. The host applies them as a WorkspaceEdit.
 */
import { findNodeAtLocation, modify, parseTree } from 'jsonc-parser';
import type { TextEdit } from '../textEdit';

export { applyEdits, type TextEdit } from '../textEdit';

export function setPassesEdits(text: string, storyIndex: number, passes: boolean): TextEdit[] {
  return modify(text, ['userStories', storyIndex, 'passes'], passes, { formattingOptions: formattingOf(text) });
}

/**
 * Deletes one blockedBy element (or one of an alias key, `key`) and its separator, nothing else. Not jsonc-parser's `modify`: in
 * 3.3.1 removing the last element leaves a stray character behind (invalid JSON,
 * microsoft/node-jsonc-parser#108), and its re-formatting rewrites the whole line or array.
 */
export function removeBlockedByEdits(text: string, storyIndex: number, elementIndex: number, key = 'blockedBy'): TextEdit[] {
  const root = parseTree(text, [], { disallowComments: false, allowTrailingComma: true });
  const array = root && findNodeAtLocation(root, ['userStories', storyIndex, key]);
  const items = array?.type === 'array' ? (array.children ?? []) : [];
  const target = items[elementIndex];
  if (!array || !target) {
    return [];
  }
  if (items.length === 1) {
    // The only element: leave an empty array.
    return [{ offset: array.offset + 1, length: array.length - 2, content: '' }];
  }
  if (elementIndex < items.length - 1) {
    // Up to the next element: the element, its comma and the whitespace before the next one.
    const next = items[elementIndex + 1];
    return [{ offset: target.offset, length: next.offset - target.offset, content: '' }];
  }
  // The last element: from the end of the previous one (its comma included) to the end of this one.
  const prev = items[elementIndex - 1];
  const start = prev.offset + prev.length;
  return [{ offset: start, length: target.offset + target.length - start, content: '' }];
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
