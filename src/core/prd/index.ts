/** One call for callers that want everything: parse, validate, compute readiness. */
import { LineIndex } from '../text';
import { parsePrd, parsePrdBytes, type PrdDocument } from './document';
import { storyFromData } from './fastParse';
import { graphProblemCodes, type Problem } from './problems';
import { computeReadiness, type Readiness } from './readiness';
import { isValidPrdData } from './schema';
import { validatePrd } from './validate';

export interface PrdAnalysis {
  readonly doc: PrdDocument;
  readonly problems: readonly Problem[];
  readonly readiness: Readiness;
  readonly cycles: readonly (readonly string[])[];
  /** True when the file can be read as a list of stories (only graph problems, if any). */
  readonly readable: boolean;
}

export function analyzePrd(input: string | Uint8Array): PrdAnalysis {
  const doc = typeof input === 'string' ? parsePrd(input) : parsePrdBytes(input);
  const { problems, graph, cycles } = validatePrd(doc);
  const readiness = computeReadiness(doc.stories, graph, cycles);
  const readable = doc.hasStories && problems.every((p) => graphProblemCodes.has(p.code));
  return { doc, problems, readiness, cycles, readable };
}

const NO_POSITION = { offset: 0, length: 0, start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } as const;

/**
 * The same answer as analyzePrd for callers that only need readiness (the CLI's `next` and
 * `ready` on large files): a valid file is read with JSON.parse and a hand check of the schema,
 * without positions. As soon as anything is wrong (bytes, syntax, schema, ids, the graph) it falls
 * back to analyzePrd, so every problem still comes with its line and column. On the quick path
 * the stories' ranges are empty: use analyzePrd when you need them.
 */
export function analyzePrdQuick(bytes: Uint8Array): PrdAnalysis {
  let body = bytes;
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) {
    body = body.subarray(3);
  }
  let data: unknown;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    data = JSON.parse(text);
  } catch {
    return analyzePrd(bytes);
  }
  if (!isValidPrdData(data) || text.includes('"__proto__"')) {
    return analyzePrd(bytes);
  }
  const none = { range: NO_POSITION, idRange: NO_POSITION, passesRange: NO_POSITION, criteriaRanges: [], blockedByRange: () => NO_POSITION };
  const stories = data.userStories.map((s, index) => storyFromData(s, index, none));
  const doc: PrdDocument = {
    text,
    lines: new LineIndex(''),
    projectName: data.projectName,
    branchName: data.branchName,
    description: data.description,
    stories,
    problems: [],
    hasStories: true,
  };
  const { problems, graph, cycles } = validatePrd(doc);
  if (problems.length > 0) {
    return analyzePrd(bytes);
  }
  return { doc, problems, readiness: computeReadiness(stories, graph, cycles), cycles, readable: true };
}
