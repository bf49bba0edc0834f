/**
 * `ralph-workbench next` answers a clean prd.json from JSON.parse alone (quickNext) and leaves
 * everything else to the full analysis. Property tests (fast-check): on random files, valid and
 * not (hostile ids, duplicates, cycles, unknown and self dependencies, wrong types, other shapes,
 * deep nesting behind a repeated key, BOMs, bad UTF-8, broken syntax), quickNext either declines
 * or gives exactly the answer analyzePrd gives, and it declines whenever analyzePrd finds a
 * problem; on clean files it answers.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DEPENDENCY_KEYS } from '../../src/core/prd/dependencyKeys';
import { MAX_NESTING } from '../../src/core/prd/document';
import { analyzePrd } from '../../src/core/prd/index';
import { nextAnswerOf, quickNext } from '../../src/core/prd/quickNext';
import { makePrd } from './helpers';

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

const HOSTILE_IDS = ['A', ' A', 'B ', '-x', 'a\u001bb', 'c\u0085', '\u202eD', '__proto__', 'constructor', 'toString', 'hasOwnProperty', '', '   ', 7, 0, null, true, ['A'], 'Ü😀', '\u00a0E'];

/** `{"a": [{"a": … 1 …}]}` nested `levels` deep. */
function nest(levels: number): unknown {
  let v: unknown = 1;
  for (let k = 0; k < levels; k++) {
    v = k % 2 ? { a: v } : [v];
  }
  return v;
}

/** Values of a story's fields the full path complains about (or reads in its own way), one field at a time. */
const ODD: Record<string, unknown[]> = {
  id: HOSTILE_IDS,
  title: [undefined, 3, null, ['t'], '\u001b[31mred'],
  description: [undefined, null, 1, {}],
  acceptanceCriteria: [undefined, null, 'x', [1], ['ok', null], {}],
  acceptance_criteria: [['c']],
  priority: [undefined, -0, 1.5, null, 'high', 'P1', '7', 'soon', 1e308, true],
  passes: [undefined, null, 'yes', 1],
  status: ['done', 'open', 3],
  blockedBy: [null, 'A', [3], [''], [' A'], ['Z'], ['A', 'Z'], [{}], [' ']],
  dependsOn: [['A'], null],
  notes: [5, null, ['n']],
  // Right at the limit of what the full path reads, or just past it.
  'x-deep': [nest(MAX_NESTING - 4), nest(MAX_NESTING - 3), nest(MAX_NESTING - 2)],
};

/** `value` one time in `every`, else undefined. */
const sometimes = <T>(value: fc.Arbitrary<T>, every: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: every - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });

const storyArb = fc.record({
  title: fc.string({ maxLength: 6 }),
  description: fc.string({ maxLength: 6 }),
  acceptanceCriteria: fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
  priority: fc.integer({ min: -2, max: 4 }),
  passes: fc.boolean(),
  deps: fc.option(fc.array(fc.nat(9), { maxLength: 3 }), { nil: undefined }),
  // Dependencies on earlier stories mostly; else on any id of the pool (later ones, unknown ones, cycles).
  anywhere: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  depKey: fc.constantFrom(...DEPENDENCY_KEYS),
  notes: fc.option(fc.string({ maxLength: 4 }), { nil: undefined }),
  // The id of the story before it, in about one story in eight.
  duplicate: sometimes(fc.constant(true), 8),
  // At most one odd field per story, in about one story in five.
  odd: sometimes(fc.constantFrom(...Object.keys(ODD)).chain((k) => fc.tuple(fc.constant(k), fc.constantFrom(...ODD[k]))), 5),
});

type StoryGen = typeof storyArb extends fc.Arbitrary<infer T> ? T : never;

const POOL_IDS = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'];

function storyObject(s: StoryGen, i: number): Record<string, unknown> {
  const o: Record<string, unknown> = { id: POOL_IDS[s.duplicate ? Math.max(i - 1, 0) : i], title: s.title, description: s.description, acceptanceCriteria: s.acceptanceCriteria, priority: s.priority, passes: s.passes };
  if (s.deps && (i > 0 || s.anywhere)) {
    o[s.depKey] = s.deps.map((d) => (s.anywhere ? POOL_IDS[d % POOL_IDS.length] : POOL_IDS[d % Math.max(i, 1)]));
  }
  if (s.notes !== undefined) {
    o.notes = s.notes;
  }
  if (s.odd) {
    // defineProperty: a "__proto__" value or key stays data.
    const [k, v] = s.odd;
    if (v === undefined) {
      delete o[k];
    } else {
      Object.defineProperty(o, k === 'blockedBy' ? s.depKey : k, { value: v, enumerable: true, writable: true, configurable: true });
    }
  }
  return o;
}

const prdArb = fc.record({
  stories: fc.array(storyArb, { maxLength: 7 }),
  shape: fc.oneof({ weight: 8, arbitrary: fc.constant('standard') }, { weight: 2, arbitrary: fc.constantFrom('stories', 'array', 'wrapper', 'not-a-list') }),
  meta: fc.oneof({ weight: 8, arbitrary: fc.constant({}) }, { weight: 2, arbitrary: fc.constantFrom({ projectName: 3 }, { branchName: ['b'] }, { description: {} }, { projectName: null }) }),
  // A repeated root key whose first value (dropped by JSON.parse) nests near the limit.
  repeatedDeep: sometimes(fc.constantFrom(MAX_NESTING - 2, MAX_NESTING - 1, MAX_NESTING), 6),
  indent: fc.constantFrom(0, 2, '\t'),
  bom: fc.constantFrom('', '\ufeff', '\ufeff\ufeff'),
  byteBom: fc.boolean(),
  badByte: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  edit: sometimes(fc.record({ at: fc.nat(), del: fc.nat(3), ins: fc.constantFrom('', '{', '}', ']', ',', '"', ':', 'x', '1e', '\\') }), 8),
});

type PrdGen = typeof prdArb extends fc.Arbitrary<infer T> ? T : never;

function prdBytes(p: PrdGen): Uint8Array {
  const stories = p.stories.map((s, i) => storyObject(s, i));
  const value =
    p.shape === 'standard'
      ? { ...p.meta, userStories: stories }
      : p.shape === 'stories'
        ? { stories }
        : p.shape === 'array'
          ? stories
          : p.shape === 'wrapper'
            ? { prd: { userStories: stories } }
            : { userStories: 'none' };
  let text = JSON.stringify(value, null, p.indent);
  if (p.repeatedDeep !== undefined && text.startsWith('{') && text !== '{}') {
    // JSON.parse keeps the later "userStories"; the full path's depth check reads the text.
    text = `{"userStories": ${JSON.stringify(nest(p.repeatedDeep))},${text.slice(1)}`;
  }
  if (p.edit) {
    const at = p.edit.at % (text.length + 1);
    text = text.slice(0, at) + p.edit.ins + text.slice(at + p.edit.del);
  }
  const body = encode(p.bom + text);
  const bytes = new Uint8Array(body.length + (p.byteBom ? 3 : 0) + (p.badByte ? 1 : 0));
  bytes.set(p.byteBom ? [0xef, 0xbb, 0xbf] : [], 0);
  bytes.set(body, p.byteBom ? 3 : 0);
  if (p.badByte) {
    // An invalid byte inside the first string (or at the end).
    const q = body.indexOf(0x22);
    const at = (p.byteBom ? 3 : 0) + (q < 0 ? body.length : q + 1);
    bytes.copyWithin(at + 1, at, bytes.length - 1);
    bytes[at] = 0xff;
  }
  return bytes;
}

describe('next: the answer from JSON.parse alone (quickNext)', () => {
  it('declines every file the full analysis finds a problem in, and otherwise gives its answer', () => {
    let answered = 0;
    let declined = 0;
    fc.assert(
      fc.property(prdArb, (p) => {
        const bytes = prdBytes(p);
        const quick = quickNext(bytes);
        const full = analyzePrd(bytes);
        if (quick === undefined) {
          declined++;
          return;
        }
        answered++;
        assert.deepEqual(full.problems.map((x) => x.message), [], 'quickNext answered a file with problems');
        assert.deepEqual(quick, nextAnswerOf(full.readiness));
      }),
      { numRuns: 1500 },
    );
    // Neither side may be left untested by the generator.
    assert.ok(answered > 150 && declined > 500, `answered ${answered}, declined ${declined}`);
  });

  it('answers every clean file: random dependency graphs, hostile but valid ids, ties, -0, byte-order marks', () => {
    const ids = ['US-1', 'US-2', 'Ü😀', '__proto__', 'constructor', 'a"b', 'x\\y', 'a\u2028b', 'toString', 'US-10'];
    const specArb = fc.array(fc.record({ priority: fc.constantFrom(-0, 0, 1, 2, 2.5, -3), passes: fc.boolean(), deps: fc.array(fc.nat(), { maxLength: 3 }) }), { maxLength: ids.length });
    fc.assert(
      fc.property(specArb, fc.constantFrom(0, 2), fc.boolean(), fc.constantFrom('', '\ufeff', '\ufeff\ufeff'), fc.boolean(), (specs, indent, notes, bom, byteBom) => {
        // Dependencies only on stories earlier in the file: no cycle.
        const text = makePrd(
          specs.map((s, i) => ({
            id: ids[i],
            priority: s.priority,
            passes: s.passes,
            blockedBy: i === 0 ? [] : [...new Set(s.deps.map((d) => ids[d % i]))].concat(s.deps.length > 2 ? [ids[s.deps[0] % i]] : []),
            ...(notes ? { notes: null as unknown as string } : {}),
          })),
          {},
          indent,
        );
        const body = encode(bom + text);
        const bytes = byteBom ? new Uint8Array([0xef, 0xbb, 0xbf, ...body]) : body;
        const full = analyzePrd(bytes);
        assert.deepEqual(full.problems.map((x) => x.message), []);
        assert.deepEqual(quickNext(bytes), nextAnswerOf(full.readiness));
      }),
      { numRuns: 400 },
    );
  });
});
