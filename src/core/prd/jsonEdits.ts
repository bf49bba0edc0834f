/**
 * Minimal JSON text edits in the file's own layout, for prd.json. jsonc-parser's `modify` re-formats
 * the lines around an insertion (a one-line file becomes a multi-line one; a story written on one
 * line is spread over many, and so is the story before a new one) and addresses the FIRST copy of
 * a repeated key, while JSON.parse, the prd model and every agent read the LAST. These edits:
 * - find values as JSON.parse does (document.ts's `nodeAt`: the last copy of a repeated key);
 * - replace a value in place, or insert a property / array element right after the container's
 *   last child, touching no byte before it;
 * - write inside a one-line container on that line (`, "key": value`), and inside a multi-line one
 *   on a new line with the indentation of its other children (the file's unit: spaces or tabs).
 */
import { type Node, parseTree } from 'jsonc-parser';
import type { TextEdit } from '../textEdit';
import { nodeAt } from './document';
import type { JsonPath } from './model';

export { nodeAt };

export function jsonTree(text: string): Node | undefined {
  return parseTree(text, [], { disallowComments: false, allowTrailingComma: true });
}

/** A text's tree and style, computed once for many edits of the same text. */
export interface ParsedJson {
  readonly root: Node | undefined;
  readonly style: JsonStyle;
}

/** How the file writes JSON: its line ending, its indentation unit, its spacing on one line. */
export interface JsonStyle {
  readonly eol: string;
  readonly unit: string;
  readonly colon: string;
  readonly comma: string;
}

export function jsonStyleOf(text: string): JsonStyle {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const m = /\n([ \t]+)\S/.exec(text);
  const unit = m ? (m[1].startsWith('\t') ? '\t' : ' '.repeat(Math.min(m[1].length, 8))) : '  ';
  // spaced unless the file is written without spaces (minified)
  const colon = /":\S/.test(text) && !/":[ \t]/.test(text) ? ':' : ': ';
  const comma = /,\S/.test(text) && !/,[ \t]/.test(text) ? ',' : ', ';
  return { eol, unit, colon, comma };
}

/** A value on one line, spaced like the file (`{"id": "A", "x": [1, 2]}` or `{"id":"A"}`). */
function inline(value: unknown, style: JsonStyle): string {
  if (Array.isArray(value)) {
    return `[${value.map((v) => inline(v, style)).join(style.comma)}]`;
  }
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}${style.colon}${inline(v, style)}`).join(style.comma)}}`;
  }
  return JSON.stringify(value);
}

/** A value over several lines, its inner lines indented from `indent` by the file's unit. */
function block(value: unknown, indent: string, style: JsonStyle): string {
  return JSON.stringify(value, null, style.unit).split('\n').join(style.eol + indent);
}

function isOneLine(text: string, node: Node): boolean {
  return !text.slice(node.offset, node.offset + node.length).includes('\n');
}

/** The whitespace that starts the line `offset` is on. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start, offset))?.[0] ?? '';
}

/** True when only whitespace precedes `offset` on its line. */
function startsLine(text: string, offset: number): boolean {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return text.slice(start, offset).trim() === '';
}

/** A value that reads well on one line whatever the file's layout: a scalar or a list of scalars. */
function isSimple(value: unknown): boolean {
  return value === null || typeof value !== 'object' || (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object'));
}

/**
 * Inserts a child (a `"key": value` or an element, written by `write` on one line when given no
 * indent, else as a block from that indent) as the container's last child.
 */
function appendTo(text: string, container: Node, write: (indent: string | undefined) => string, simple: boolean, style: JsonStyle): TextEdit {
  const children = container.children ?? [];
  const last = children.at(-1);
  if (isOneLine(text, container) && (last || simple || !text.includes('\n'))) {
    // on the container's line: `[1]` → `[1, 2]`, `[]` → `["A"]`, `{}` → `{"k": v}` in a one-line file
    return last ? { offset: last.offset + last.length, length: 0, content: style.comma + write(undefined) } : { offset: container.offset + 1, length: container.length - 2, content: write(undefined) };
  }
  if (last) {
    const indent = startsLine(text, last.offset) ? lineIndent(text, last.offset) : lineIndent(text, container.offset) + style.unit;
    return { offset: last.offset + last.length, length: 0, content: `,${style.eol}${indent}${write(indent)}` };
  }
  // an empty container in a multi-line file: the new child on a line of its own
  const outer = lineIndent(text, container.offset);
  const indent = outer + style.unit;
  return { offset: container.offset + 1, length: container.length - 2, content: `${style.eol}${indent}${write(indent)}${style.eol}${outer}` };
}

/** The text of a value written at a place: on one line, or as a block from `indent`. */
function valueText(value: unknown, indent: string | undefined, style: JsonStyle): string {
  return indent === undefined ? inline(value, style) : block(value, indent, style);
}

/**
 * Sets the value at `path` (the last copy of a repeated key): replaced in place when it exists,
 * else added as the last property of its object. No edit when the parent object is not there.
 */
export function setValueEdits(text: string, path: JsonPath, value: unknown, parsed?: ParsedJson): TextEdit[] {
  const root = parsed ? parsed.root : jsonTree(text);
  const style = parsed?.style ?? jsonStyleOf(text);
  const current = nodeAt(root, path);
  if (current) {
    const content = isOneLine(text, current) ? inline(value, style) : block(value, lineIndent(text, current.offset), style);
    return [{ offset: current.offset, length: current.length, content }];
  }
  const key = path.at(-1);
  const parent = nodeAt(root, path.slice(0, -1));
  if (typeof key !== 'string' || parent?.type !== 'object') {
    return [];
  }
  return [appendTo(text, parent, (indent) => `${JSON.stringify(key)}${indent === undefined ? style.colon : ': '}${valueText(value, indent, style)}`, isSimple(value), style)];
}

/** Appends `value` to the array at `path` (the last copy of a repeated key). */
export function appendElementEdits(text: string, path: JsonPath, value: unknown): TextEdit[] {
  return appendElementsEdits(text, path, [value]);
}

/**
 * Appends `values` to the array at `path` in one edit (each laid out as appendElementEdits lays one
 * out): 10,000 new stories are one insertion, not 10,000 re-parses of a growing text.
 */
export function appendElementsEdits(text: string, path: JsonPath, values: readonly unknown[], parsed?: ParsedJson): TextEdit[] {
  const root = parsed ? parsed.root : jsonTree(text);
  const array = nodeAt(root, path);
  if (array?.type !== 'array' || values.length === 0) {
    return [];
  }
  const style = parsed?.style ?? jsonStyleOf(text);
  const write = (indent: string | undefined) => values.map((v) => valueText(v, indent, style)).join(indent === undefined ? style.comma : `,${style.eol}${indent}`);
  return [appendTo(text, array, write, values.every(isSimple), style)];
}
