/**
 * Fuzz (issue 8): hostile prd.json files through validate and next. No exception escapes, every
 * problem lies inside the file, and the output stays linear in the input. 10,000 generated files
 * through the core, every 50th also through the CLI (runCli, validate and next --json).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyzePrd } from '../../src/core/prd/index';
import { cli, makePrd } from './helpers';

const base: Uint8Array = new TextEncoder().encode(
  makePrd([
    { id: 'US-001', passes: true },
    { id: 'US-002', blockedBy: ['US-001'], acceptanceCriteria: ['a', 'b'] },
    { id: 'US-003', dependsOn: ['US-002', 'US-009'], priority: 'high' as unknown as number },
    { id: 'US-004', blockedBy: ['US-005'] },
    { id: 'US-005', blockedBy: ['US-004'], notes: 'n' },
  ]),
);

type Mutation = (b: Uint8Array) => Uint8Array;
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const splice = (b: Uint8Array, at: number, del: number, ins: Uint8Array): Uint8Array => {
  const i = at % (b.length + 1);
  return new Uint8Array([...b.subarray(0, i), ...ins, ...b.subarray(Math.min(b.length, i + del))]);
};

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  // byte flips
  fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([at, v]) => (b: Uint8Array) => {
    const c = b.slice();
    c[at % Math.max(1, c.length)] = v;
    return c;
  }),
  // truncation
  fc.nat().map((n) => (b: Uint8Array) => b.subarray(0, n % (b.length + 1))),
  // deep nesting, closed or not
  fc.tuple(fc.nat(), fc.integer({ min: 50, max: 12_000 }), fc.boolean()).map(([at, depth, closed]) => (b: Uint8Array) => splice(b, at, 0, enc(`${'['.repeat(depth)}${closed ? ']'.repeat(depth) : ''}`))),
  // huge strings (ids and values)
  fc.tuple(fc.nat(), fc.integer({ min: 1_000, max: 50_000 })).map(([at, n]) => (b: Uint8Array) => splice(b, at, 0, enc(`"${'x'.repeat(n)}"`))),
  fc.integer({ min: 1_000, max: 50_000 }).map((n) => (b: Uint8Array) => enc(new TextDecoder().decode(b).replace('"US-002"', `"${'Q'.repeat(n)}"`))),
  // odd numbers
  fc.tuple(fc.nat(), fc.constantFrom('1e400', '-0', '1e-999', '0x10', '01', '-', '1.', 'NaN', 'Infinity', '9'.repeat(400))).map(([at, n]) => (b: Uint8Array) => splice(b, at, 0, enc(n))),
  fc.constantFrom('1e400', '-1e400', '1e-400', '"P9"', '"urgent"', 'null', '[]').map((n) => (b: Uint8Array) => enc(new TextDecoder().decode(b).replace(/"priority": \d+/, `"priority": ${n}`))),
  // BOM, UTF-16, invalid UTF-8
  fc.constant((b: Uint8Array) => new Uint8Array([0xef, 0xbb, 0xbf, ...b])),
  fc.constant((b: Uint8Array) => new Uint8Array([0xff, 0xfe, ...Buffer.from(new TextDecoder().decode(b), 'utf16le')])),
  fc.tuple(fc.nat(), fc.constantFrom(0xc0, 0xc1, 0xf5, 0xff, 0x80, 0xed)).map(([at, v]) => (b: Uint8Array) => splice(b, at, 0, new Uint8Array([v]))),
  // duplicate keys, control characters, option-like ids, other shapes
  fc.constantFrom('"id": "US-001", ', '"passes": "yes", ', '"blockedBy": 3, ', '"dependsOn": ["US-001"], ', '"__proto__": {}, ', '"id": "\\t-x", ').map((ins) => (b: Uint8Array) => enc(new TextDecoder().decode(b).replace(/\{\n(\s+)"id"/, (_m, sp: string) => `{\n${sp}${ins}"id"`))),
  fc.constantFrom('userStories', 'stories', 'tasks').map((k) => (b: Uint8Array) => enc(new TextDecoder().decode(b).replace('"userStories"', `"${k}"`))),
);

describe('fuzz: hostile prd.json files through validate and next', function () {
  this.timeout(120_000);

  it('10,000 files: no exception, every location inside the file, output linear in the input', () => {
    let n = 0;
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (muts) => {
        let bytes: Uint8Array = base;
        for (const m of muts) {
          bytes = m(bytes);
        }
        const a = analyzePrd(bytes);
        const size = a.doc.text.length;
        let out = 0;
        for (const p of a.problems) {
          assert.ok(p.range.offset >= 0 && p.range.length >= 0 && p.range.offset + p.range.length <= size, `${p.code} at ${p.range.offset}+${p.range.length} outside ${size}`);
          assert.ok(p.range.start.line >= 0 && p.range.start.line < a.doc.lines.lineCount, `${p.code} on line ${p.range.start.line}`);
          out += p.message.length + 60;
        }
        for (const line of a.readiness.explanation) {
          out += line.length;
        }
        assert.ok(out <= 50 * bytes.length + 5_000, `${out} bytes of output for ${bytes.length} bytes of input`);
        if (n++ % 50 === 0) {
          for (const command of ['validate', 'next']) {
            const r = cli([command, '--json'], { 'prd.json': bytes });
            assert.ok(r.code >= 0 && r.code <= 2, `${command} exit ${r.code}`);
            const json = JSON.parse(r.stdout) as { problems?: unknown[] };
            assert.ok(r.stdout.length + r.stderr.length <= 60 * bytes.length + 10_000, `${command}: ${r.stdout.length + r.stderr.length} bytes for ${bytes.length}`);
            assert.ok(json && typeof json === 'object');
          }
        }
      }),
      { numRuns: 10_000, seed: 20261123 },
    );
    assert.ok(n >= 10_000);
  });
});
