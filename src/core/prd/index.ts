/** One call for callers that want everything: parse, validate, compute readiness. */
import { type ParseOptions, parsePrd, parsePrdBytes } from './document';
import type { PrdDocument } from './model';
import { graphProblemCodes, type Problem } from './problems';
import { computeReadiness, type Readiness } from './readiness';
import { buildStoryGraph } from './graph';
import { graphIsClean, validatePrd } from './validate';

/** The steps of an analysis, as reported to AnalyzeOptions.onStep. */
export type AnalysisStep = 'quick-parse' | 'located-parse' | 'validate' | 'readiness';

export interface AnalyzeOptions extends ParseOptions {
  /** Called as each step starts: lets a test count the passes over a file (a file is validated once). */
  readonly onStep?: (step: AnalysisStep) => void;
}

export interface PrdAnalysis {
  readonly doc: PrdDocument;
  readonly problems: readonly Problem[];
  readonly readiness: Readiness;
  readonly cycles: readonly (readonly string[])[];
  /**
   * True when the stories can be used: a story list was found and every error is about the
   * dependency graph (warnings never block).
   */
  readonly readable: boolean;
  /** Counts of the problems by severity. */
  readonly errors: number;
  readonly warnings: number;
}

/**
 * Reads, validates and orders a prd.json in one pass. A valid file takes the fast path inside
 * parsePrd (JSON.parse and one scan for positions); anything else the parse tree. Either way the
 * file is analysed once.
 */
export function analyzePrd(input: string | Uint8Array, options: AnalyzeOptions = {}): PrdAnalysis {
  options.onStep?.(options.positions === false ? 'quick-parse' : 'located-parse');
  const doc = typeof input === 'string' ? parsePrd(input, options) : parsePrdBytes(input, options);
  options.onStep?.('validate');
  const { problems, graph, cycles } = validatePrd(doc);
  options.onStep?.('readiness');
  const readiness = computeReadiness(doc.stories, graph, cycles, doc.fileName);
  let errors = 0;
  let blocking = 0;
  for (const p of problems) {
    if (p.severity === 'error') {
      errors++;
      if (!graphProblemCodes.has(p.code)) {
        blocking++;
      }
    }
  }
  const readable = doc.hasStories && blocking === 0;
  return { doc, problems, readiness, cycles, readable, errors, warnings: problems.length - errors };
}

/**
 * analyzePrd for callers that need positions only to show problems (the CLI's next and ready).
 * The file is first read without positions (the usual, valid file needs nothing more: its graph
 * is checked with graphIsClean and it is ordered). At the first sign of a problem (one found
 * while reading, or a graph that is not clean) that pass stops before any validation work and
 * the file is analysed once, with positions: validation, its suggestion index and readiness run
 * once either way.
 */
export function analyzePrdForReadiness(input: string | Uint8Array, options: AnalyzeOptions = {}): PrdAnalysis {
  options.onStep?.('quick-parse');
  const quickOptions = { ...options, positions: false };
  const doc = typeof input === 'string' ? parsePrd(input, quickOptions) : parsePrdBytes(input, quickOptions);
  if (doc.problems.length === 0 && doc.hasStories) {
    const graph = buildStoryGraph(doc.stories);
    if (graphIsClean(doc.stories, graph)) {
      options.onStep?.('readiness');
      const readiness = computeReadiness(doc.stories, graph, [], doc.fileName);
      return { doc, problems: [], readiness, cycles: [], readable: true, errors: 0, warnings: 0 };
    }
  }
  return analyzePrd(input, options);
}
