/**
 * Minimal text edits to prd.json (jsonEdits.ts): only the touched value changes, so formatting,
 * key order and unknown fields are kept, and a repeated key is edited where JSON.parse reads it. The host applies them as a WorkspaceEdit.
 * Every edit of a dependency edits the array the story already uses (blockedBy or an alias).
 * Adding or removing a dependency of a story by id (graph, Stories view) is graphEdits.ts, on top of these.
 */
import type { Node } from 'jsonc-parser';
import type { TextEdit } from '../textEdit';
import type { DependencyKey } from './dependencyKeys';
import { jsonStyleOf, jsonTree as tree, nodeAt, setValueEdits } from './jsonEdits';
import type { JsonPath } from './model';
import type { ProblemFix } from './problems';

export { applyEdits, type TextEdit } from '../textEdit';

/** A story by its index in userStories (the standard shape) or by its path. */
type StoryAt = number | JsonPath;

function storyPath(at: StoryAt): JsonPath {
  return typeof at === 'number' ? ['userStories', at] : at;
}

export function setPassesEdits(text: string, story: StoryAt, passes: boolean): TextEdit[] {
  return setValueEdits(text, [...storyPath(story), 'passes'], passes);
}

/**
 * Deletes one dependency element and its separator, nothing else. Not jsonc-parser's `modify`: in
 * 3.3.1 removing the last element leaves a stray character behind (invalid JSON,
 * microsoft/node-jsonc-parser#108), and its re-formatting rewrites the whole line or array.
 */
export function removeBlockedByEdits(text: string, story: StoryAt, elementIndex: number, key: DependencyKey = 'blockedBy'): TextEdit[] {
  const root = tree(text);
  const array = root && nodeAt(root, [...storyPath(story), key]);
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

/** Replaces one dependency id by another, in place. */
export function replaceBlockedByEdits(text: string, story: StoryAt, elementIndex: number, key: DependencyKey, replacement: string): TextEdit[] {
  const root = tree(text);
  const target = nodeAt(root, [...storyPath(story), key, elementIndex]);
  return target ? [{ offset: target.offset, length: target.length, content: JSON.stringify(replacement) }] : [];
}

/** The edits of a quick fix. */
export function fixEdits(text: string, fix: ProblemFix): TextEdit[] {
  switch (fix.kind) {
    case 'remove-blocked-by':
      return removeBlockedByEdits(text, fix.storyPath, fix.elementIndex, fix.key);
    case 'replace-blocked-by':
      return replaceBlockedByEdits(text, fix.storyPath, fix.elementIndex, fix.key, fix.replacement);
    case 'write-ids': {
      return fix.storyPaths.flatMap((path, k) => setValueEdits(text, [...path, 'id'], fix.ids[k]));
    }
    case 'convert-shape':
      return convertShapeEdits(text, fix.list);
  }
}

/** {"stories": […]} → {"userStories": […]}; {"prd": {… "stories": […]}} → {… "userStories": […]}; […] → {"userStories": […]}. */
export function convertShapeEdits(text: string, list: JsonPath): TextEdit[] {
  const root = tree(text);
  if (!root) {
    return [];
  }
  const { eol } = jsonStyleOf(text);
  if (list.length === 0 && root.type === 'array') {
    return [
      { offset: root.offset, length: 0, content: `{${eol}"userStories": ` },
      { offset: root.offset + root.length, length: 0, content: `${eol}}` },
    ];
  }
  const rename = (parent: Node, key: string, base: number): TextEdit[] => {
    const prop = parent.children?.find((p) => p.children?.[0]?.value === key);
    const keyNode = prop?.children?.[0];
    return keyNode && key !== 'userStories' ? [{ offset: keyNode.offset - base, length: keyNode.length, content: '"userStories"' }] : [];
  };
  if (list.length === 1 && root.type === 'object') {
    return rename(root, String(list[0]), 0);
  }
  if (list.length === 2) {
    const inner = nodeAt(root, [list[0]]);
    if (inner?.type !== 'object') {
      return [];
    }
    // The wrapper's object becomes the root, its list renamed.
    let body = text.slice(inner.offset, inner.offset + inner.length);
    for (const e of rename(inner, String(list[1]), inner.offset)) {
      body = body.slice(0, e.offset) + e.content + body.slice(e.offset + e.length);
    }
    return [{ offset: root.offset, length: root.length, content: body }];
  }
  return [];
}
