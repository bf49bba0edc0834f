/**
 * Fuzzing compaction (issue 8): ≥ 2,000 generated progress.txt files in the shapes people write
 * (heading styles, learning labels, flat and nested bullets, files lists, CRLF, odd text) through
 * compaction: no exception, every learning bullet survives in the compacted file, and a second
 * compaction changes nothing.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { planCompaction } from '../../src/core/progress/compact';

const RUNS = { numRuns: 2000, seed: 0x5eed_c0de };
const now = new Date(2026, 10, 20, 9, 0);

const LEARNING_LABELS = [
  '- **Learnings for future iterations:**',
  '**Learnings for future iterations:**',
  'Learnings for future iterations (carry into SEAM-003/004):',
  'Learnings:',
  'Lessons:',
  'Key notes:',
  'Notes for next developer:',
  '### Learnings',
  '- **Gotchas:**',
];

/** Text without line ends, NULs or other control characters (hostile but textual). */
const oddText = fc.string({ maxLength: 40, unit: 'grapheme' }).map((s) => s.replace(/[\u0000-\u001f\u007f\u2028\u2029\ufeff]/g, ' '));

const entryArb = fc.record({
  heading: fc.constantFrom('dated-us', 'dated-any', 'id-colon', 'date-only', 'bracket', 'iteration'),
  day: fc.integer({ min: 1, max: 28 }),
  id: fc.integer({ min: 1, max: 30 }),
  title: oddText,
  summary: fc.array(oddText, { maxLength: 4 }),
  files: fc.constantFrom('none', 'inline', 'bullets'),
  labelIndex: fc.integer({ min: 0, max: LEARNING_LABELS.length - 1 }),
  flat: fc.boolean(),
  learnings: fc.array(oddText, { maxLength: 5 }),
  wrapped: fc.boolean(),
  separator: fc.boolean(),
});

const fileArb = fc.record({
  patterns: fc.array(oddText, { maxLength: 3 }),
  entries: fc.array(entryArb, { minLength: 1, maxLength: 14 }),
  crlf: fc.boolean(),
  threshold: fc.integer({ min: 0, max: 60 }),
  keep: fc.integer({ min: 0, max: 40 }),
});

type File = typeof fileArb extends fc.Arbitrary<infer T> ? T : never;

/** The file's text and every learning written in it (unique texts). */
function render(f: File): { text: string; learnings: string[] } {
  const out: string[] = ['# Ralph Progress Log', 'Started: 2026-01-01', '---', ''];
  if (f.patterns.length > 0) {
    out.push('## Codebase Patterns', ...f.patterns.map((p) => `- ${p}`), '', '---', '');
  }
  const learnings: string[] = [];
  f.entries.forEach((e, i) => {
    const date = `2026-01-${String(e.day).padStart(2, '0')}`;
    const id = e.heading === 'dated-any' ? `feature-${e.id}x` : `US-${String(e.id).padStart(3, '0')}`;
    const title = e.title.trim() === '' ? 'work' : e.title.trim().replace(/^[#>*\-+\d]+/, 'T');
    const heading = {
      'dated-us': `## ${date} 10:00 - ${id} - ${title}`,
      'dated-any': `## ${date} - ${id}: ${title}`,
      'id-colon': `## ${id}: ${title}`,
      'date-only': `## ${date}`,
      bracket: `## [${date}] ${id}: ${title}`,
      iteration: `## Iteration ${i + 1} - ${id}`,
    }[e.heading];
    out.push(heading);
    for (const s of e.summary) {
      out.push(`- S${i} ${s}`);
    }
    if (e.files === 'inline') {
      out.push(`- Files changed: src/a${i}.ts, src/app/(public)/p${i}.tsx`);
    } else if (e.files === 'bullets') {
      out.push('- Files changed:', `  - src/a${i}.ts - what changed, and why`, `  - src/app/(public)/p${i}.tsx`);
    }
    if (e.learnings.length > 0) {
      const label = LEARNING_LABELS[e.labelIndex];
      const bulletLabel = label.startsWith('- ');
      out.push(label);
      e.learnings.forEach((l, j) => {
        const text = `L${i}x${j} ${l}`.trimEnd();
        learnings.push(text);
        const indent = bulletLabel && !e.flat ? '  ' : '';
        out.push(`${indent}- ${text}`);
        if (e.wrapped && j === 0) {
          out.push(`${indent}  continued W${i}x${j}`);
        }
      });
    }
    if (e.separator) {
      out.push('---');
    }
    out.push('');
  });
  const eol = f.crlf ? '\r\n' : '\n';
  return { text: out.join(eol), learnings };
}

describe('compaction fuzz (2,000 generated progress.txt files)', function () {
  this.timeout(300_000);

  it('never throws, keeps every learning bullet, and a second compaction changes nothing', () => {
    fc.assert(
      fc.property(fileArb, (f) => {
        const { text, learnings } = render(f);
        const once = planCompaction(text, { threshold: f.threshold, keepRecentLines: f.keep, now });
        for (const l of learnings) {
          assert.ok(once.text.includes(l), `learning lost: ${JSON.stringify(l)}\n--- input:\n${text}\n--- output:\n${once.text}`);
        }
        const twice = planCompaction(once.text, { threshold: f.threshold, keepRecentLines: f.keep, now: new Date(2027, 0, 1) });
        assert.equal(twice.changed, false, `second compaction: ${twice.reason}\n--- first output:\n${once.text}`);
        assert.equal(twice.text, once.text);
      }),
      RUNS,
    );
  });
});
