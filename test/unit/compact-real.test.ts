/**
 * Compaction of progress.txt as people really write it (issue 8 item 7, issue 9 items 5–7):
 * every learning survives, headings other than `## <date> - US-NNN`, file paths intact.
 */
import assert from 'node:assert/strict';
import { planCompaction } from '../../src/core/progress/compact';
import fc from 'fast-check';
import { parseProgress } from '../../src/core/progress/parse';

const now = new Date(2026, 10, 20, 9, 0);
const header = '# Ralph Progress Log\nStarted: 2026-01-01\n---\n\n## Codebase Patterns\n- Pattern one\n\n---\n\n';
const filler = (n: number, from = 100): string =>
  Array.from({ length: n }, (_, i) => `## 2026-02-${String((i % 27) + 1).padStart(2, '0')} - US-${from + i}\n- recent work ${i}\n---\n`).join('\n');

function compact(body: string): string {
  const text = header + body + '\n' + filler(3);
  const plan = planCompaction(text, { threshold: 5, keepRecentLines: 8, now });
  assert.equal(plan.changed, true, plan.reason);
  return plan.text;
}

function compactedSection(out: string): string {
  const start = out.indexOf('## Compacted history');
  const end = out.indexOf('## 2026-02-');
  return out.slice(start, end);
}

describe('compaction keeps every learning people write', () => {
  it('keeps learnings written as bullets at the same indent as the bold label (issue 8 item 7)', () => {
    const learnings = Array.from({ length: 12 }, (_, i) => `flat learning number ${i}`);
    const out = compact(
      '## 2026-01-05 - US-001\n- did the thing\n- **Learnings for future iterations:**\n' + learnings.map((l) => `- ${l}`).join('\n') + '\n---\n',
    );
    const section = compactedSection(out);
    for (const l of learnings) {
      assert.ok(section.includes(`  - ${l}\n`), `lost "${l}":\n${section}`);
    }
  });

  for (const label of [
    'Learnings for future iterations (carry into SEAM-003/004):',
    'Learnings:',
    'Lessons:',
    'Key notes:',
    'Notes for next developer:',
    '**Gotchas:**',
  ]) {
    it(`reads "${label}" followed by bullets as learnings (issue 9 item 7)`, () => {
      const out = compact(`## 2026-01-05 - US-001\n- did the thing\n\n${label}\n- first lesson about ${label}\n- second lesson\n  with a wrapped line\n---\n`);
      const section = compactedSection(out);
      assert.ok(section.includes(`  - first lesson about ${label}\n`), section);
      assert.ok(section.includes('  - second lesson\n'), section);
      assert.ok(section.includes('with a wrapped line'), section);
    });
  }

  it('reads headings with any id after " - ", "<ID>: <title>" and date-only headings as entries (issue 9 item 5)', () => {
    const out = compact(
      [
        '## 2026-03-22 - parity-icon: Icon parity\n- did\n- **Learnings for future iterations:**\n  - icon learning\n---\n',
        '## SEAM-003: Split the seams\n- did\n- **Learnings for future iterations:**\n  - seam learning\n---\n',
        '## 2026-03-23\n- did a day of work\n- **Learnings for future iterations:**\n  - dated learning\n---\n',
        '## 2026-03-24 - fix-login-bug\n- did\n---\n',
      ].join('\n'),
    );
    const doc = parseProgress(out);
    const ids = doc.compacted!.stories.map((s) => s.storyId).slice(0, 4);
    assert.deepEqual(ids, ['parity-icon', 'SEAM-003', '(no story id) 2026-03-23', 'fix-login-bug']);
    const again = planCompaction(out, { threshold: 5, keepRecentLines: 8, now });
    assert.equal(again.changed, false, again.reason);
    assert.equal(doc.compacted!.stories[0].title, 'Icon parity');
    const section = compactedSection(out);
    for (const l of ['icon learning', 'seam learning', 'dated learning']) {
      assert.ok(section.includes(l), section);
    }
    assert.ok(!section.includes('### (no story id)\n'), section);
  });

  it('keeps file paths intact and does not split a Files changed item from its description (issue 9 item 6)', () => {
    const out = compact(
      '## 2026-01-05 - US-001\n- did\n- Files changed:\n  - `src/app/(public)/layout.tsx` - new public layout\n  - src/lib/a-b.ts - helper, with a comma\n  - docs/README.md\n---\n',
    );
    const doc = parseProgress(out);
    assert.deepEqual(doc.compacted!.stories[0].files, ['src/app/(public)/layout.tsx', 'src/lib/a-b.ts', 'docs/README.md']);
  });
  it('keeps a "Files changed" item whole up to the description: " - " inside brackets is part of the path (issue 18 item 15)', () => {
    const out = compact(
      '## 2026-01-05 - US-001\n- did\n- Files changed:\n  - src/a (old - new).ts - renamed\n  - My File - Copy.ts - a copy, kept\n  - src/b (draft.ts - unbalanced, kept whole\n  - src/c.ts - added X - with Y\n---\n',
    );
    const doc = parseProgress(out);
    assert.deepEqual(doc.compacted!.stories[0].files, ['src/a (old - new).ts', 'My File - Copy.ts', 'src/b (draft.ts - unbalanced, kept whole', 'src/c.ts']);
  });

  it('keeps labelled learning bullets word for word: "- Gotcha: …" is a learning, not a heading (issue 18 item 14)', () => {
    const out = compact(
      '## 2026-01-05 - US-001\n- did the thing\n- **Learnings for future iterations:**\n  - Gotcha: the cache is per request\n  - Note: run migrations first\n  - Insight: tests share one port\n---\n' +
        '## 2026-01-06 - US-002\n- did more\n- Gotcha: tokens expire after an hour\n- Tip: use the fake clock\n---\n',
    );
    const section = compactedSection(out);
    for (const l of ['Gotcha: the cache is per request', 'Note: run migrations first', 'Insight: tests share one port', 'Gotcha: tokens expire after an hour', 'Tip: use the fake clock']) {
      assert.ok(section.includes(`  - ${l}\n`), `"${l}" was not kept word for word:\n${section}`);
    }
  });

  it('property: every learning bullet of the input appears verbatim in the output (issue 18 item 14)', () => {
    const word = fc.constantFrom('cache', 'per', 'request', 'the', 'tests', 'use', 'port', 'db', 'x', 'migrations', 'a-b', '(note)', 'id:', 'US-9');
    const label = fc.constantFrom('', 'Gotcha: ', 'Note: ', 'Insight: ', 'Tip: ', 'Caveat: ', 'Lesson: ', 'Takeaway: ', 'Warning: ', 'Important: ', 'Key: ', 'NB: ');
    const learning = fc.tuple(label, fc.array(word, { minLength: 1, maxLength: 6 })).map(([l, ws]) => `${l}${ws.join(' ')}`);
    const entry = fc.tuple(fc.constantFrom('- **Learnings for future iterations:**', '- **Learnings:**', '**Gotchas:**', 'Learnings:'), fc.array(learning, { minLength: 1, maxLength: 5 }));
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 4 }), (entries) => {
        const body = entries
          .map(([head, ls], i) => `## 2026-01-${String(i + 1).padStart(2, '0')} - US-00${i + 1}\n- did ${i}\n${head}\n${ls.map((l) => `  - ${l}`).join('\n')}\n---\n`)
          .join('\n');
        const section = compactedSection(compact(body));
        for (const [, ls] of entries) {
          for (const l of ls) {
            assert.ok(section.includes(`  - ${l}\n`), `"${l}" was not kept:\n${section}`);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
