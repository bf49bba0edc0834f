/**
 * Positions for the fast path of parsePrd: a file that JSON.parse accepted, with the stories in a
 * root "userStories" array. One pass over the text (already validated by JSON.parse, so the scan
 * can be simple) finds each story object, the value of each of its keys and the elements of the
 * arrays the model places (dependencies, acceptance criteria). It builds no parse tree, which on a
 * 10,000-story file is most of the time and memory of the tree path.
 *
 * Anything unusual (a repeated "userStories" key, a "__proto__" key, a structure it does not
 * expect) returns undefined and the parse-tree path handles the file. The Story itself is built by
 * story.ts for both paths; test/unit/properties.test.ts holds the two paths equal.
 */
import type { LineIndex, TextRange } from '../text';
import { ELEMENT_KEYS, type StoryLocator } from './story';

interface StoryLayout {
  /** Offset of the opening brace, and of the character after the closing one. */
  start: number;
  end: number;
  /** The keys in file order, and the offset and length of each one's value (flat pairs): few allocations on 10,000 stories. */
  keys: string[];
  values: number[];
  /** For keys in ELEMENT_KEYS holding an array: key, then the offset, length pairs of its elements. */
  elements: (string | number[])[];
}

/** Index of the last occurrence of `key` (JSON.parse keeps the last), or -1. */
function lastIndexOf(keys: readonly string[], key: string): number {
  for (let k = keys.length - 1; k >= 0; k--) {
    if (keys[k] === key) {
      return k;
    }
  }
  return -1;
}

/** A locator per story of the root "userStories" array, or undefined when the scan gives up. */
export function scanStoryLocators(text: string, lines: LineIndex): StoryLocator[] | undefined {
  const layout = scanLayout(text);
  if (!layout) {
    return undefined;
  }
  return layout.map((at) => ({
    range: lines.range(at.start, at.end - at.start),
    value: (key: string): TextRange | undefined => {
      const k = lastIndexOf(at.keys, key);
      return k < 0 ? undefined : lines.range(at.values[2 * k], at.values[2 * k + 1]);
    },
    element: (key: string, k: number): TextRange | undefined => {
      // The elements of the last occurrence of the key, if that occurrence is an array.
      const last = lastIndexOf(at.keys, key);
      let e: number[] | undefined;
      for (let j = 0; j + 1 < at.elements.length; j += 2) {
        if (at.elements[j] === key) {
          e = at.elements[j + 1] as number[];
        }
      }
      const start = last < 0 ? -1 : at.values[2 * last];
      return e && e.length > 0 && e[0] > start && 2 * k + 1 < e.length ? lines.range(e[2 * k], e[2 * k + 1]) : undefined;
    },
  }));
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/**
 * Positions of each story's object, id, passes and array elements. Only for text that JSON.parse
 * accepted: it checks the structure it relies on and gives up (undefined) on anything else.
 */
function scanLayout(text: string): StoryLayout[] | undefined {
  const n = text.length;
  let i = 0;
  let giveUp = false;

  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) {
        i++;
      } else {
        return;
      }
    }
  };
  /** At a quote: moves past the closing quote. */
  const skipString = (): void => {
    let from = i + 1;
    for (;;) {
      const q = text.indexOf('"', from);
      if (q < 0) {
        giveUp = true;
        i = n;
        return;
      }
      let b = q - 1;
      while (text.charCodeAt(b) === BACKSLASH) {
        b--;
      }
      if ((q - 1 - b) % 2 === 0) {
        i = q + 1;
        return;
      }
      from = q + 1;
    }
  };
  const readKey = (): string => {
    const start = i;
    skipString();
    const raw = text.slice(start + 1, i - 1);
    const key = raw.includes('\\') ? (JSON.parse(text.slice(start, i)) as string) : raw;
    if (key === '__proto__') {
      giveUp = true;
    }
    return key;
  };
  const skipValue = (): void => {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      skipString();
      return;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      let depth = 0;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === QUOTE) {
          skipString();
          continue;
        }
        if (d === OPEN_BRACE || d === OPEN_BRACKET) {
          depth++;
        } else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
          depth--;
          if (depth === 0) {
            i++;
            return;
          }
        }
        i++;
      }
      return;
    }
    // A number, true, false or null.
    while (i < n) {
      const d = text.charCodeAt(i);
      if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || d === 32 || d === 10 || d === 13 || d === 9) {
        return;
      }
      i++;
    }
  };
  /** At an opening bracket: the offset, length of each element, past the closing bracket. */
  const elements = (out: number[]): void => {
    i++;
    ws();
    if (text.charCodeAt(i) === CLOSE_BRACKET) {
      i++;
      return;
    }
    for (;;) {
      ws();
      const start = i;
      skipValue();
      out.push(start, i - start);
      ws();
      const c = text.charCodeAt(i++);
      if (c !== COMMA) {
        giveUp ||= c !== CLOSE_BRACKET;
        return;
      }
    }
  };
  /** At an opening brace: calls `member` with i at each value (it must skip the value), past the closing brace. */
  const members = (member: (key: string) => void): void => {
    i++;
    ws();
    if (text.charCodeAt(i) === CLOSE_BRACE) {
      i++;
      return;
    }
    while (!giveUp) {
      ws();
      if (text.charCodeAt(i) !== QUOTE) {
        giveUp = true;
        return;
      }
      const key = readKey();
      ws();
      if (text.charCodeAt(i++) !== COLON) {
        giveUp = true;
        return;
      }
      ws();
      member(key);
      ws();
      const c = text.charCodeAt(i++);
      if (c !== COMMA) {
        giveUp ||= c !== CLOSE_BRACE;
        return;
      }
    }
  };

  const story = (): StoryLayout => {
    // A repeated key counts once, the last time (as in JSON.parse and the tree path).
    const at: StoryLayout = { start: i, end: i, keys: [], values: [], elements: [] };
    members((key) => {
      const start = i;
      if (ELEMENT_KEYS.has(key) && text.charCodeAt(i) === OPEN_BRACKET) {
        const list: number[] = [];
        at.elements.push(key, list);
        elements(list);
      } else {
        skipValue();
      }
      at.keys.push(key);
      at.values.push(start, i - start);
    });
    at.end = i;
    return at;
  };

  ws();
  if (text.charCodeAt(i) !== OPEN_BRACE) {
    return undefined;
  }
  let layout: StoryLayout[] | undefined;
  members((key) => {
    if (key !== 'userStories') {
      return skipValue();
    }
    if (layout || text.charCodeAt(i) !== OPEN_BRACKET) {
      // The tree path reads the first "userStories" and the schema checks the last: leave it that way.
      giveUp = true;
      return skipValue();
    }
    const list: StoryLayout[] = [];
    layout = list;
    i++;
    ws();
    if (text.charCodeAt(i) === CLOSE_BRACKET) {
      i++;
      return;
    }
    while (!giveUp) {
      ws();
      if (text.charCodeAt(i) !== OPEN_BRACE) {
        giveUp = true;
        return;
      }
      list.push(story());
      ws();
      const c = text.charCodeAt(i++);
      if (c !== COMMA) {
        giveUp ||= c !== CLOSE_BRACKET;
        return;
      }
    }
  });
  return giveUp ? undefined : layout;
}
