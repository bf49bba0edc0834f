/** One call for callers that want everything: parse, validate, compute readiness. */
import { parsePrd, parsePrdBytes, type PrdDocument } from './document';
import { graphProblemCodes, type Problem } from './problems';
import { computeReadiness, type Readiness } from './readiness';
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
