/**
 * Reads prd.json into a lenient story model with exact positions. Every problem it meets (bytes,
 * syntax, schema) becomes a located Problem; it never throws on bad input.
 */
import { type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import { describeJsonError, MAX_NESTING, nodeValue, tooDeepAt } from '../jsonTree';
import { LineIndex, type TextRange } from '../text';
import { scanStoryLocators } from './fastParse';
import type { JsonPath, PrdDocument, PrdShape, Story } from './model';
import type { Problem } from './problems';
import { shapeOf, valueAt } from './shape';
import { buildStory, describePath, StoryFindings, type StoryLocator } from './story';

export type { BlockedByRef, JsonPath, PrdDocument, PrdShape, Story } from './model';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function withoutBom(bytes: Uint8Array): Uint8Array {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
}

/**
 * The text of well-formed UTF-8 bytes (a BOM stripped), else undefined: parsing that text is
 * parsing the bytes (the workspace model compares it with the text it last parsed).
 */
export function decodePrdBytes(bytes: Uint8Array): string | undefined {
  // The native strict decoder checks well-formedness; parsePrdBytes locates a bad byte only when there is one.
  try {
    return strictUtf8.decode(withoutBom(bytes));
  } catch {
    return undefined;
  }
}

/** Reads raw bytes: reports invalid UTF-8 at its line, strips a BOM, and parses the rest. */
export function parsePrdBytes(bytes: Uint8Array, options: ParseOptions = {}): PrdDocument {
  const valid = decodePrdBytes(bytes);
  if (valid !== undefined) {
    return parsePrd(valid, options);
  }
  const body = withoutBom(bytes);
  const bad = firstInvalidUtf8(body);
  const text = new TextDecoder('utf-8').decode(body);
  if (bad < 0) {
    return parsePrd(text, options);
  }
  const doc = parsePrd(text, options);
  const offset = new TextDecoder('utf-8').decode(body.subarray(0, bad)).length;
  const encoding: Problem = {
    code: 'encoding',
    severity: 'error',
    message: `${doc.fileName} is not valid UTF-8: byte 0x${body[bad].toString(16).padStart(2, '0')} at byte offset ${bad} cannot be decoded. Save the file as UTF-8.`,
    range: doc.lines.range(offset, 1),
  };
  return { ...doc, problems: [encoding, ...doc.problems] };
}

export interface ParseOptions {
  /** The file's name as the user knows it (default prd.json): messages name it. */
  readonly fileName?: string;
  /**
   * False: a valid file is read without positions (every range is line 1, column 1), which
   * saves the layout scan and most allocations: for callers that only need the stories and
   * their readiness (the CLI's next and ready) and re-read with positions when there is a
   * problem to show. Files that need the parse tree always get positions.
   */
  readonly positions?: boolean;
}

const NO_POSITION: TextRange = { offset: 0, length: 0, start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
const NO_LOCATOR: StoryLocator = { range: NO_POSITION, value: () => NO_POSITION, element: () => NO_POSITION };

export function parsePrd(source: string, options: ParseOptions = {}): PrdDocument {
  return readPrd(source, true, options.fileName ?? 'prd.json', options.positions ?? true);
}

/** parsePrd without its fast path for valid files: the reference the unit tests hold that path to. */
export function parsePrdWithTree(source: string, options: ParseOptions = {}): PrdDocument {
  return readPrd(source, false, options.fileName ?? 'prd.json');
}

// Deeper nesting is refused with a located problem before anything recursive (the parse tree,
// the value walk) sees the text: the shared rule of src/core/jsonTree.ts.
export { MAX_NESTING, tooDeepAt };

const NO_SHAPE: PrdShape = { kind: 'none', lists: [], found: '' };

function readPrd(source: string, fast: boolean, fileName: string, positions = true): PrdDocument {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const lines = new LineIndex(text);
  const problems: Problem[] = [];
  const empty = (shape: PrdShape = NO_SHAPE): PrdDocument => ({ text, lines, fileName, stories: [], problems, hasStories: false, shape });

  if (text.trim() === '') {
    problems.push({
      code: 'empty-file',
      severity: 'error',
      message: `${fileName} is empty. It needs an object with a "userStories" array (run "Ralph: Create prd.json" for a template).`,
      range: lines.range(0, 0),
    });
    return empty();
  }
  const deep = tooDeepAt(text);
  if (deep >= 0) {
    problems.push({
      code: 'too-deep',
      severity: 'error',
      message: `${fileName} is nested more than ${MAX_NESTING} levels deep here: Ralph Workbench does not read it. A prd.json needs a few levels (the root, userStories, a story, its lists).`,
      range: lines.range(deep, 1),
    });
    return empty();
  }

  // Valid JSON with the stories in "userStories" (the usual case) needs no parse tree.
  if (fast) {
    let data: unknown;
    let parsed = false;
    try {
      data = JSON.parse(text);
      parsed = true;
    } catch {
      // the tree path reports where
    }
    if (parsed) {
      const shape = shapeOf(data);
      const list = shape.kind === 'standard' && shape.lists.length === 1 ? (valueAt(data, shape.lists[0]) as unknown[]) : undefined;
      const locators = list && list.every(isRecord) ? (positions ? scanStoryLocators(text, lines) : list.map(() => NO_LOCATOR)) : undefined;
      if (list && locators && locators.length === list.length) {
        const root = positions ? lines.range(Math.max(0, text.search(/\S/)), 1) : NO_POSITION;
        return assemble(text, lines, fileName, data, shape, problems, list.map((raw, i) => ({ raw: raw as Record<string, unknown>, path: ['userStories', i], at: locators[i] })), root, () => undefined);
      }
    }
  }

  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  for (const e of errors) {
    problems.push({
      code: 'syntax',
      severity: 'error',
      message: `JSON syntax error: ${describeJsonError(printParseErrorCode(e.error))}`,
      // At least one character, but never past the end (an error at the end of the file is empty).
      range: lines.range(Math.min(e.offset, text.length), Math.min(Math.max(e.length, 1), text.length - Math.min(e.offset, text.length))),
    });
  }
  if (!root) {
    return empty();
  }
  if (root.type !== 'object' && root.type !== 'array') {
    problems.push({
      code: 'schema',
      severity: 'error',
      message: `${fileName} must be a JSON object with a "userStories" array, not ${describeNodeType(root)}.`,
      range: lines.range(root.offset, root.length),
    });
    return empty();
  }
  const data: unknown = nodeValue(root);
  const shape = shapeOf(data);
  const items: StoryInput[] = [];
  for (const listPath of shape.lists) {
    const node = nodeAt(root, listPath);
    (node?.type === 'array' ? (node.children ?? []) : []).forEach((child, i) => {
      items.push({ raw: (child.type === 'object' ? nodeValue(child) : undefined) as Record<string, unknown> | undefined, node: child, path: [...listPath, i], at: treeLocator(child, lines) });
    });
  }
  const locate = (path: JsonPath): TextRange | undefined => {
    const node = nodeAt(root, path);
    return node ? lines.range(node.offset, node.length) : undefined;
  };
  return assemble(text, lines, fileName, data, shape, problems, items, lines.range(root.offset, 1), locate, errors.length > 0);
}

interface StoryInput {
  /** The story object, or undefined when the list element is not an object. */
  readonly raw: Record<string, unknown> | undefined;
  readonly node?: Node;
  readonly path: JsonPath;
  readonly at: StoryLocator;
}

/** The document from its parsed value and its stories: the same for both paths. */
function assemble(
  text: string,
  lines: LineIndex,
  fileName: string,
  data: unknown,
  shape: PrdShape,
  problems: Problem[],
  items: readonly StoryInput[],
  rootRange: TextRange,
  locate: (path: JsonPath) => TextRange | undefined,
  syntaxErrors = false,
): PrdDocument {
  const found: Problem[] = [];
  const meta = shape.kind === 'wrapper' ? valueAt(data, shape.lists[0].slice(0, -1)) : data;
  const record = isRecord(meta) ? meta : {};
  const metaString = (k: string, severity: 'error' | 'warning'): string | undefined => {
    const v = Object.prototype.hasOwnProperty.call(record, k) ? record[k] : undefined;
    if (v === undefined || v === null || typeof v === 'string') {
      return v ?? undefined;
    }
    const at = shape.kind === 'wrapper' ? [...shape.lists[0].slice(0, -1), k] : [k];
    found.push({ code: 'schema', severity, message: `${describePath(at)}: expected a string, got ${Array.isArray(v) ? 'an array' : typeof v}${severity === 'warning' ? '; ignored' : ''}.`, range: locate(at) ?? rootRange });
    return undefined;
  };
  const projectName = metaString('projectName', 'warning');
  const branchName = metaString('branchName', 'error');
  const description = metaString('description', 'warning');

  if (shape.kind === 'none') {
    found.push({
      code: 'no-stories',
      severity: 'error',
      message: isRecord(data) ? `${fileName} has no list of stories: Ralph reads a "userStories" array (also accepted: "stories", "tasks", "items", a {"prd": {…}} wrapper, phases with stories, or a top-level array).` : `${fileName} must be a JSON object with a "userStories" array.`,
      range: rootRange,
    });
  } else if (shape.kind === 'standard' && shape.lists.length === 0) {
    const v = (data as Record<string, unknown>).userStories;
    found.push({ code: 'schema', severity: 'error', message: `userStories: expected an array of stories, got ${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`}.`, range: locate(['userStories']) ?? rootRange });
  } else if (shape.kind !== 'standard') {
    const fix = shape.kind === 'phases' ? undefined : { kind: 'convert-shape' as const, title: shape.kind === 'array' ? 'Wrap the array as {"userStories": […]}' : shape.kind === 'wrapper' ? `Convert to {"userStories": […]} (unwrap "${String(shape.lists[0][0])}")` : `Rename "${String(shape.lists[0][0])}" to "userStories"`, list: shape.lists[0] };
    const how = shape.kind === 'phases' ? 'Move the stories of every phase into one "userStories" array.' : shape.kind === 'array' ? 'Wrap the array in {"userStories": […]} (quick fix).' : 'Convert it (quick fix).';
    found.push({
      code: 'shape',
      severity: 'warning',
      message: `${fileName}: found ${shape.found}: Ralph reads "userStories". The stories are shown as read from this non-standard shape; the ralph.sh loop and other tools may not read them. ${how}`,
      range: rootRange,
      fixes: fix ? [fix] : undefined,
    });
  }

  const findings = new StoryFindings();
  const stories: Story[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item.raw) {
      // index: the place in the list (non-objects count), so edits and derived ids (#n) match the file.
      stories.push(buildStory(item.raw, i, item.path, item.at, findings));
    } else {
      findings.error('schema', `${describePath(item.path)}: expected a story object, got ${item.node ? describeNodeType(item.node) : 'something else'}.`, item.at.range);
    }
  }
  const used = new Set(stories.map((s) => s.id));
  const proposeId = (index: number): string => {
    for (const candidate of [`US-${String(index + 1).padStart(3, '0')}`, `STORY-${index + 1}`]) {
      if (!used.has(candidate)) {
        used.add(candidate);
        return candidate;
      }
    }
    return `STORY-${index + 1}-${used.size}`;
  };
  // After a syntax error the tree is a guess: complaints about its fields would only be noise.
  if (!syntaxErrors) {
    problems.push(...found, ...findings.finish(proposeId));
  }
  return { text, lines, fileName, projectName, branchName, description, stories, problems, hasStories: shape.lists.length > 0, shape };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The node at a path, taking the last of repeated keys (as JSON.parse and nodeValue do; edits address it too). */
export function nodeAt(root: Node | undefined, path: JsonPath): Node | undefined {
  let node: Node | undefined = root;
  for (const p of path) {
    if (!node) {
      return undefined;
    }
    if (typeof p === 'number') {
      node = node.type === 'array' ? node.children?.[p] : undefined;
    } else if (node.type === 'object') {
      let value: Node | undefined;
      for (const prop of node.children ?? []) {
        const [key, v] = prop.children ?? [];
        if (key?.value === p && v) {
          value = v;
        }
      }
      node = value;
    } else {
      return undefined;
    }
  }
  return node;
}

function treeLocator(node: Node, lines: LineIndex): StoryLocator {
  const props = new Map<string, Node>();
  for (const prop of node.children ?? []) {
    const [key, value] = prop.children ?? [];
    if (key && value && typeof key.value === 'string') {
      props.set(key.value, value);
    }
  }
  return {
    range: lines.range(node.offset, node.length),
    value: (key) => {
      const v = props.get(key);
      return v ? lines.range(v.offset, v.length) : undefined;
    },
    element: (key, k) => {
      const v = props.get(key);
      const e = v?.type === 'array' ? v.children?.[k] : undefined;
      return e ? lines.range(e.offset, e.length) : undefined;
    },
  };
}

function describeNodeType(node: Node): string {
  return node.type === 'array' ? 'an array' : node.type === 'null' ? 'null' : `a ${node.type}`;
}

/** Index of the first byte that is not part of a well-formed UTF-8 sequence, or -1. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  const n = b.length;
  while (i < n) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else {
      return i;
    }
    let cp = c & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const cc = b[i + k];
      if (cc === undefined || (cc & 0xc0) !== 0x80) {
        return i;
      }
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      return i;
    }
    i += need + 1;
  }
  return -1;
}
