/**
 * Reads prd.json into a lenient story model with exact positions. Every problem it meets (bytes,
 * syntax, schema) becomes a located Problem; it never throws on bad input.
 */
import { findNodeAtLocation, type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import type { z } from 'zod';
import { LineIndex, type TextRange } from '../text';
import { parseValidPrd } from './fastParse';
import type { Problem } from './problems';
import { prdSchema } from './schema';

export interface BlockedByRef {
  readonly id: string;
  /** Index inside the blockedBy array. */
  readonly elementIndex: number;
  readonly range: TextRange;
}

export interface Story {
  /** Index in userStories. */
  readonly index: number;
  /** '' when the story has no usable id. */
  readonly id: string;
  readonly title: string;
  /** Infinity when missing or not a number (runs last). */
  readonly priority: number;
  readonly passes: boolean;
  readonly description: string;
  readonly acceptanceCriteria: readonly string[];
  readonly blockedBy: readonly BlockedByRef[];
  readonly notes?: string;
  /** The whole story object. */
  readonly range: TextRange;
  /** The id value, or the object's opening brace when there is none. */
  readonly idRange: TextRange;
  readonly passesRange?: TextRange;
  readonly criteriaRanges: readonly TextRange[];
}

export interface PrdDocument {
  readonly text: string;
  readonly lines: LineIndex;
  readonly projectName?: string;
  readonly branchName?: string;
  readonly description?: string;
  readonly stories: readonly Story[];
  /** Problems found while reading (encoding, syntax, schema); validation adds graph problems. */
  readonly problems: readonly Problem[];
  /** False when the text is not a JSON object with a userStories array (nothing to show). */
  readonly hasStories: boolean;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads raw bytes: reports invalid UTF-8 at its line, strips a BOM, and parses the rest. */
export function parsePrdBytes(bytes: Uint8Array): PrdDocument {
  let body = bytes;
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) {
    body = body.subarray(3);
  }
  // The native strict decoder checks well-formedness; locate the bad byte only when there is one.
  let valid: string | undefined;
  try {
    valid = strictUtf8.decode(body);
  } catch {
    valid = undefined;
  }
  if (valid !== undefined) {
    return parsePrd(valid);
  }
  const bad = firstInvalidUtf8(body);
  const text = new TextDecoder('utf-8').decode(body);
  if (bad < 0) {
    return parsePrd(text);
  }
  const doc = parsePrd(text);
  const offset = new TextDecoder('utf-8').decode(body.subarray(0, bad)).length;
  const encoding: Problem = {
    code: 'encoding',
    severity: 'error',
    message: `prd.json is not valid UTF-8: byte 0x${body[bad].toString(16).padStart(2, '0')} at byte offset ${bad} cannot be decoded. Save the file as UTF-8.`,
    range: doc.lines.range(offset, 1),
  };
  return { ...doc, problems: [encoding, ...doc.problems] };
}

export function parsePrd(source: string): PrdDocument {
  return readPrd(source, true);
}

/** parsePrd without its fast path for valid files: the reference the unit tests hold that path to. */
export function parsePrdWithTree(source: string): PrdDocument {
  return readPrd(source, false);
}

function readPrd(source: string, fast: boolean): PrdDocument {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const lines = new LineIndex(text);
  const problems: Problem[] = [];
  const empty = (hasStories = false): PrdDocument => ({ text, lines, stories: [], problems, hasStories });

  if (text.trim() === '') {
    problems.push({
      code: 'empty-file',
      severity: 'error',
      message: 'prd.json is empty. It needs an object with a "userStories" array (run "Ralph: Create prd.json" for a template).',
      range: lines.range(0, 0),
    });
    return empty();
  }

  // Valid JSON that matches the schema (the usual case) needs no parse tree.
  const valid = fast ? parseValidPrd(text, lines) : undefined;
  if (valid) {
    return valid;
  }

  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  for (const e of errors) {
    problems.push({
      code: 'syntax',
      severity: 'error',
      message: `JSON syntax error: ${describeParseError(printParseErrorCode(e.error))}`,
      range: lines.range(e.offset, Math.max(e.length, 1)),
    });
  }
  if (!root) {
    return empty();
  }
  if (root.type !== 'object') {
    problems.push({
      code: 'schema',
      severity: 'error',
      message: `prd.json must be a JSON object with a "userStories" array, not ${describeNodeType(root)}.`,
      range: lines.range(root.offset, root.length),
    });
    return empty();
  }

  const data: unknown = nodeValue(root);
  // reportInput: zod 4 leaves issue.input out otherwise, and a wrong-typed value would read as missing.
  // After a syntax error the tree is a guess: schema complaints about it would only be noise.
  const parsed = errors.length > 0 ? undefined : prdSchema.safeParse(data, { reportInput: true });
  if (parsed && !parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push(schemaProblem(issue, root, lines));
    }
  }

  const storiesNode = findNodeAtLocation(root, ['userStories']);
  const stories: Story[] = [];
  if (storiesNode?.type === 'array') {
    const children = storiesNode.children ?? [];
    for (let i = 0; i < children.length; i++) {
      const node = children[i];
      if (node.type === 'object') {
        stories.push(readStory(node, i, lines));
      }
    }
  }
  const record = data as Record<string, unknown>;
  return {
    text,
    lines,
    projectName: stringOrUndefined(record.projectName),
    branchName: stringOrUndefined(record.branchName),
    description: stringOrUndefined(record.description),
    stories,
    problems,
    hasStories: storiesNode?.type === 'array',
  };
}

function readStory(node: Node, index: number, lines: LineIndex): Story {
  const props = new Map<string, Node>();
  for (const prop of node.children ?? []) {
    const [key, value] = prop.children ?? [];
    if (key && value && typeof key.value === 'string') {
      props.set(key.value, value);
    }
  }
  const str = (k: string): string | undefined => {
    const v = props.get(k);
    return v?.type === 'string' ? (v.value as string) : undefined;
  };
  const idNode = props.get('id');
  const rawId = str('id')?.trim() ?? '';
  const priorityNode = props.get('priority');
  const passesNode = props.get('passes');
  const criteriaNode = props.get('acceptanceCriteria');
  const blockedNode = props.get('blockedBy');
  const criteria: string[] = [];
  const criteriaRanges: TextRange[] = [];
  if (criteriaNode?.type === 'array') {
    for (const c of criteriaNode.children ?? []) {
      if (c.type === 'string') {
        criteria.push(c.value as string);
        criteriaRanges.push(lines.range(c.offset, c.length));
      }
    }
  }
  const blockedBy: BlockedByRef[] = [];
  if (blockedNode?.type === 'array') {
    (blockedNode.children ?? []).forEach((c, elementIndex) => {
      if (c.type === 'string') {
        blockedBy.push({ id: (c.value as string).trim(), elementIndex, range: lines.range(c.offset, c.length) });
      }
    });
  }
  const idAnchor = idNode ?? node;
  return {
    index,
    id: rawId,
    title: str('title') ?? '',
    priority: priorityNode?.type === 'number' ? (priorityNode.value as number) : Number.POSITIVE_INFINITY,
    passes: passesNode?.type === 'boolean' ? (passesNode.value as boolean) : false,
    description: str('description') ?? '',
    acceptanceCriteria: criteria,
    blockedBy,
    notes: str('notes'),
    range: lines.range(node.offset, node.length),
    idRange: idNode ? lines.range(idAnchor.offset, idAnchor.length) : lines.range(node.offset, 1),
    passesRange: passesNode ? lines.range(passesNode.offset, passesNode.length) : undefined,
    criteriaRanges,
  };
}

/** A plain value from a parse tree (jsonc-parser's getNodeValue, without its recursion limits on wide arrays). */
function nodeValue(node: Node): unknown {
  switch (node.type) {
    case 'object': {
      const obj: Record<string, unknown> = {};
      for (const prop of node.children ?? []) {
        const [key, value] = prop.children ?? [];
        if (key && value) {
          obj[key.value as string] = nodeValue(value);
        }
      }
      return obj;
    }
    case 'array':
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}

type ZodIssue = z.core.$ZodIssue;

function schemaProblem(issue: ZodIssue, root: Node, lines: LineIndex): Problem {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  // The deepest node that exists on the path: a missing property is reported on its parent object.
  let node: Node | undefined;
  let depth = path.length;
  for (; depth >= 0 && !node; depth--) {
    node = depth === 0 ? root : findNodeAtLocation(root, path.slice(0, depth));
  }
  const target = node ?? root;
  const missing = issue.code === 'invalid_type' && issue.input === undefined;
  // Point at the offending value itself, or at the object's opening brace for a missing field.
  const range = missing ? lines.range(target.offset, 1) : lines.range(target.offset, target.length);
  let storyIndex: number | undefined;
  let storyId: string | undefined;
  if (path[0] === 'userStories' && typeof path[1] === 'number') {
    storyIndex = path[1];
    const idNode = findNodeAtLocation(root, ['userStories', path[1], 'id']);
    storyId = idNode?.type === 'string' ? (idNode.value as string) : undefined;
  }
  const where = describePath(path);
  const field = path[path.length - 1];
  let message: string;
  if (missing) {
    message = `${where}: missing required field "${String(field)}"${expectedSuffix(issue)}.`;
  } else if (issue.code === 'invalid_type') {
    message = `${where}: expected ${issue.expected}, got ${describeValue(issue.input)}.`;
  } else {
    message = `${where}: ${issue.message}.`;
  }
  return { code: 'schema', severity: 'error', message, range, storyId, storyIndex };
}

function expectedSuffix(issue: ZodIssue): string {
  return issue.code === 'invalid_type' ? ` (${issue.expected})` : '';
}

function describePath(path: readonly (string | number)[]): string {
  if (path.length === 0) {
    return 'prd.json';
  }
  let out = '';
  for (const p of path) {
    out += typeof p === 'number' ? `[${p}]` : out === '' ? p : `.${p}`;
  }
  return out;
}

function describeValue(v: unknown): string {
  if (v === null) {
    return 'null';
  }
  if (Array.isArray(v)) {
    return 'an array';
  }
  if (typeof v === 'string') {
    return `a string (${JSON.stringify(v.length > 30 ? `${v.slice(0, 30)}…` : v)})`;
  }
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

function describeNodeType(node: Node): string {
  return node.type === 'array' ? 'an array' : node.type === 'null' ? 'null' : `a ${node.type}`;
}

function describeParseError(code: string): string {
  const words: Record<string, string> = {
    InvalidSymbol: 'unexpected character',
    InvalidNumberFormat: 'invalid number',
    PropertyNameExpected: 'property name expected',
    ValueExpected: 'value expected',
    ColonExpected: 'colon expected',
    CommaExpected: 'comma expected',
    CloseBraceExpected: 'closing brace } expected',
    CloseBracketExpected: 'closing bracket ] expected',
    EndOfFileExpected: 'end of file expected (extra text after the JSON value)',
    InvalidCommentToken: 'comments are not allowed in prd.json (agents read it with JSON.parse and jq)',
    UnexpectedEndOfComment: 'unterminated comment',
    UnexpectedEndOfString: 'unterminated string',
    UnexpectedEndOfNumber: 'unterminated number',
    InvalidUnicode: 'invalid unicode escape',
    InvalidEscapeCharacter: 'invalid escape character',
    InvalidCharacter: 'invalid character in string',
  };
  return words[code] ?? code;
}

function stringOrUndefined(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
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
