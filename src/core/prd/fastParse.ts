/**
 * The fast path of parsePrd, for the common case: a file that is plain, valid JSON and matches the
 * schema. JSON.parse and zod give the values; one pass over the text (already validated by
 * JSON.parse, so the scan can be simple) gives the positions. It builds no parse tree, which on a
 * 10,000-story file is most of the time and memory of the tree path.
 *
 * Anything unusual (a syntax or schema problem, a repeated "userStories" key, a "__proto__" key)
 * returns undefined and the parse-tree path handles it, with exact positions for its problems. For
 * every file it accepts, the result equals the tree path's (test/unit/properties.test.ts checks).
 */
import type { LineIndex, TextRange } from '../text';
import type { BlockedByRef, PrdDocument, Story } from './document';
import { type PrdData, prdSchema } from './schema';

interface StoryLayout {
  /** Offset of the opening brace, and of the character after the closing one. */
  start: number;
  end: number;
  /** Offset and length of the id and passes values (-1 when absent). */
  id: number;
  idLength: number;
  passes: number;
  passesLength: number;
  /** Offset, length pairs of the array elements. */
  blockedBy: number[];
  criteria: number[];
}

export function parseValidPrd(text: string, lines: LineIndex): PrdDocument | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data) || !prdSchema.safeParse(data).success) {
    return undefined;
  }
  const prd = data as PrdData;
  const layout = scanLayout(text);
  if (!layout || layout.length !== prd.userStories.length) {
    return undefined;
  }
  const stories: Story[] = [];
  for (let i = 0; i < layout.length; i++) {
    const story = storyAt(prd.userStories[i], layout[i], i, lines);
    if (!story) {
      return undefined;
    }
    stories.push(story);
  }
  return {
    text,
    lines,
    projectName: prd.projectName,
    branchName: prd.branchName,
    description: prd.description,
    stories,
    problems: [],
    hasStories: true,
  };
}

function storyAt(s: PrdData['userStories'][number], at: StoryLayout, index: number, lines: LineIndex): Story | undefined {
  const ids = s.blockedBy ?? [];
  if (at.id < 0 || at.passes < 0 || at.blockedBy.length !== 2 * ids.length || at.criteria.length !== 2 * s.acceptanceCriteria.length) {
    return undefined;
  }
  const criteriaRanges: TextRange[] = [];
  for (let k = 0; k < at.criteria.length; k += 2) {
    criteriaRanges.push(lines.range(at.criteria[k], at.criteria[k + 1]));
  }
  return storyFromData(s, index, {
    range: lines.range(at.start, at.end - at.start),
    idRange: lines.range(at.id, at.idLength),
    passesRange: lines.range(at.passes, at.passesLength),
    criteriaRanges,
    blockedByRange: (k) => lines.range(at.blockedBy[2 * k], at.blockedBy[2 * k + 1]),
  });
}

/** Where a story's parts are in the text (or empty ranges when nobody needs them). */
export interface StoryRanges {
  readonly range: TextRange;
  readonly idRange: TextRange;
  readonly passesRange?: TextRange;
  readonly criteriaRanges: readonly TextRange[];
  readonly blockedByRange: (elementIndex: number) => TextRange;
}

/** A Story from one schema-valid userStories element: the same shape, in the same key order, as readStory in document.ts. */
export function storyFromData(s: PrdData['userStories'][number], index: number, at: StoryRanges): Story {
  const blockedBy: BlockedByRef[] = (s.blockedBy ?? []).map((id, elementIndex) => ({ id: id.trim(), elementIndex, range: at.blockedByRange(elementIndex) }));
  return {
    index,
    id: s.id.trim(),
    title: s.title,
    priority: s.priority,
    passes: s.passes,
    description: s.description,
    acceptanceCriteria: s.acceptanceCriteria,
    blockedBy,
    notes: s.notes,
    range: at.range,
    idRange: at.idRange,
    passesRange: at.passesRange,
    criteriaRanges: at.criteriaRanges,
  };
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
    const at: StoryLayout = { start: i, end: i, id: -1, idLength: 0, passes: -1, passesLength: 0, blockedBy: [], criteria: [] };
    members((key) => {
      const start = i;
      switch (key) {
        case 'id':
          skipValue();
          at.id = start;
          at.idLength = i - start;
          return;
        case 'passes':
          skipValue();
          at.passes = start;
          at.passesLength = i - start;
          return;
        case 'blockedBy':
          at.blockedBy = [];
          return text.charCodeAt(i) === OPEN_BRACKET ? elements(at.blockedBy) : skipValue();
        case 'acceptanceCriteria':
          at.criteria = [];
          return text.charCodeAt(i) === OPEN_BRACKET ? elements(at.criteria) : skipValue();
        default:
          return skipValue();
      }
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
