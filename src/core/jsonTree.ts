/**
 * How deep a JSON text may nest before anything recursive reads it (jsonc-parser's parser and a
 * value walk recurse once per level: a text of 100,000 brackets would overflow the stack). Shared
 * by every reader of a JSON file the user or an agent writes: prd.json, .vscode/settings.json.
 */
import type { Node } from 'jsonc-parser';

/** Real files nest a handful of levels (prd.json: the root, userStories, a story, its lists). */
export const MAX_NESTING = 200;

/** Offset of the bracket that opens level MAX_NESTING + 1, or -1. Strings are skipped. */
export function tooDeepAt(text: string, limit = MAX_NESTING): number {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) {
          i++;
        } else if (d === 34 || d === 10 || d === 13) {
          break;
        }
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > limit) {
        return i;
      }
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth = Math.max(0, depth - 1);
    }
  }
  return -1;
}

/** A plain value from a parse tree (jsonc-parser's getNodeValue, without its recursion limits on wide arrays). Depth is bounded by MAX_NESTING. */
export function nodeValue(node: Node): unknown {
  switch (node.type) {
    case 'object': {
      const obj: Record<string, unknown> = {};
      for (const prop of node.children ?? []) {
        const [key, value] = prop.children ?? [];
        if (key && value) {
          // defineProperty: a "__proto__" key is data, as in JSON.parse.
          Object.defineProperty(obj, key.value as string, { value: nodeValue(value), enumerable: true, writable: true, configurable: true });
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

/** jsonc-parser's error code (printParseErrorCode) in words. */
export function describeJsonError(code: string): string {
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
