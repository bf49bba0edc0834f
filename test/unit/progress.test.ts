/**
 * progress.txt: the parser on real-world variations, and the minimal edits (pattern, learning,
 * new entry) with their append-only forms.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  addCodebasePattern,
  addCodebasePatternAppend,
  addLearning,
  addLearningAppend,
  applyTextEdits,
  formatDate,
  newProgressEntry,
  newProgressEntryAppend,
} from '../../src/core/progress/edits';
import { planCompaction } from '../../src/core/progress/compact';
import {
  describeLearningCounts,
  learningCounts,
  learningsByStory,
  parseEntryHeading,
  parseProgress,
  parseProgressBytes,
  patternsText,
  recentEntriesText,
  splitLines,
} from '../../src/core/progress/parse';

const demoPath = path.join(__dirname, '../../examples/demo/progress.txt');
const demo = readFileSync(demoPath, 'utf8');
const lines = (t: string) => t.split(/\r\n|\n|\r/);
/** 0-based line of the first line containing `needle`. */
const at = (t: string, needle: string, nth = 0): number => {
  let seen = -1;
  const ls = lines(t);
  for (let i = 0; i < ls.length; i++) {
    if (ls[i].includes(needle) && ++seen === nth) {
      return i;
    }
  }
  throw new Error(`no line with ${needle}`);
};
const now = new Date(2026, 10, 19, 9, 5, 7);

describe('progress.txt parser', () => {
  describe('the demo file', () => {
    const doc = parseProgress(demo);

    it('finds the header, the patterns and five entries with line numbers', () => {
      assert.deepEqual(doc.problems, []);
      assert.equal(doc.header.endLine, at(demo, '## Codebase Patterns'));
      assert.equal(doc.patterns?.line, at(demo, '## Codebase Patterns'));
      assert.equal(doc.patterns?.items.length, 6);
      assert.equal(doc.patterns?.items[0].line, at(demo, 'Priority values live only'));
      assert.match(doc.patterns!.items[4].text, /^Tailwind classes must be complete/);
      assert.deepEqual(
        doc.entries.map((e) => [e.storyId, e.date, e.line]),
        [
          ['US-001', '2026-11-18 14:02', at(demo, '- US-001')],
          ['US-002', '2026-11-18 14:37', at(demo, '- US-002')],
          ['US-003', '2026-11-18 15:21', at(demo, '- US-003')],
          ['US-004', '2026-11-18 16:05', at(demo, '- US-004')],
          ['US-004', '2026-11-18 16:48', at(demo, '- US-004', 1)],
        ],
      );
    });

    it('reads threads, summaries, files changed and learnings of an entry', () => {
      const e = doc.entries[0];
      assert.equal(e.thread?.url, 'https://ampcode.com/threads/T-3f9c1e2a-7b44-4d0e-9a51-c2d8e6f0b713');
      assert.equal(e.thread?.line, e.line + 1);
      assert.equal(e.summary.length, 4);
      assert.deepEqual(e.files, ['db/migrations/004_add_task_priority.sql', 'src/shared/priority.ts', 'src/shared/task.ts']);
      assert.equal(e.learningsLine, at(demo, '**Learnings for future iterations:**'));
      assert.equal(e.learnings.length, 4);
      assert.equal(e.learnings[0].line, at(demo, 'A column added with a DEFAULT'));
      assert.equal(e.separatorLine, e.learnings[3].line + 1);
      // Sections tile the file.
      for (let k = 1; k < doc.sections.length; k++) {
        assert.equal(doc.sections[k - 1].endLine, doc.sections[k].line);
      }
      assert.equal(doc.sections[doc.sections.length - 1].endLine, doc.lineCount);
    });

    it('cleans file notes such as "(uncommitted, reverted)"', () => {
      assert.deepEqual(doc.entries[3].files, ['src/web/components/TaskEditDialog.tsx']);
    });

    it('groups learnings by story, newest first', () => {
      const g = learningsByStory(doc);
      assert.deepEqual(
        g.map((s) => [s.storyId, s.learnings.length]),
        [
          ['US-004', 5],
          ['US-003', 4],
          ['US-002', 4],
          ['US-001', 4],
        ],
      );
      assert.match(g[0].learnings[0].text, /^Invalidate by key prefix/);
      assert.equal(g[0].newestEntryLine, doc.entries[4].line);
    });

    it('gives the patterns and recent entries as text for prompts', () => {
      assert.match(patternsText(demo, doc), /^- Priority values live only/);
      const recent = recentEntriesText(demo, doc, 2);
      assert.match(recent, /^## 2026-11-18 16:05 - US-004/);
      assert.ok(recent.includes('16:48 - US-004'));
      assert.ok(!recent.includes('US-003'));
    });
  });

  it('reads CRLF files with the same structure and line numbers', () => {
    const crlf = demo.replace(/\n/g, '\r\n');
    const a = parseProgress(demo);
    const b = parseProgress(crlf);
    assert.equal(b.eol, '\r\n');
    assert.deepEqual(
      b.entries.map((e) => [e.line, e.storyId, e.learnings.length, e.files]),
      a.entries.map((e) => [e.line, e.storyId, e.learnings.length, e.files]),
    );
    assert.ok(b.entries[0].learnings.every((l) => !l.text.includes('\r')));
  });

  it('tolerates ### headings, a file without a patterns section and "Files changed:" followed by bullets', () => {
    const t = [
      '# Progress',
      '',
      '### 2025-01-02 09:00 - US-010 - Login form',
      'Files changed:',
      '- src/login.ts',
      '- `src/form.tsx`',
      '',
      '**Learnings for future iterations:**',
      '- Forms use react-hook-form',
      '  - with zod resolvers',
      '- Never call fetch in components',
      '',
      '### 2025-01-03 - US-011',
      '- did things',
      '',
    ].join('\n');
    const doc = parseProgress(t);
    assert.equal(doc.patterns, undefined);
    assert.equal(doc.header.endLine, 2);
    assert.equal(doc.entries.length, 2);
    const [a, b] = doc.entries;
    assert.equal(a.level, 3);
    assert.equal(a.title, 'Login form');
    assert.deepEqual(a.files, ['src/login.ts', 'src/form.tsx']);
    assert.deepEqual(
      a.learnings.map((l) => [l.text, l.more]),
      [
        ['Forms use react-hook-form', ['  - with zod resolvers']],
        ['Never call fetch in components', []],
      ],
    );
    assert.equal(b.date, '2025-01-03');
    assert.equal(b.storyId, 'US-011');
  });

  it('reads other heading styles: [date] id: title, id without date, Iteration N - id, bold labels', () => {
    assert.deepEqual(parseEntryHeading('[2025-03-11 10:15] US-001: Add login'), { date: '2025-03-11 10:15', storyId: 'US-001', title: 'Add login', dated: true });
    assert.deepEqual(parseEntryHeading('2025-03-11T10:15:00Z - GH-42'), { date: '2025-03-11T10:15:00Z', storyId: 'GH-42', title: undefined, dated: true });
    assert.equal(parseEntryHeading('US-007 - Filters')?.storyId, 'US-007');
    assert.equal(parseEntryHeading('Iteration 3 - US-002')?.storyId, 'US-002');
    assert.equal(parseEntryHeading('Codebase Patterns'), undefined);
    assert.equal(parseEntryHeading('Notes'), undefined);
    const t = '## Codebase Patterns\n- p\n\n## 2025-01-01 - US-1\n- **Files changed:** a.ts, b.ts\n- **Key learnings:**\n  - one\n';
    const e = parseProgress(t).entries[0];
    assert.deepEqual(e.files, ['a.ts', 'b.ts']);
    assert.deepEqual(
      e.learnings.map((l) => l.text),
      ['one'],
    );
  });

  it('keeps unknown sections as "other" and entries with unknown story ids', () => {
    const t = '# Log\n\n## Notes\nsomething\n\n## 2025-01-01 10:00 - misc-cleanup\n- x\n\n## 2025-01-02 10:00 - ZZ-999\n- y\n';
    const doc = parseProgress(t);
    assert.deepEqual(
      doc.sections.map((s) => s.kind),
      ['other', 'entry', 'entry'],
    );
    // Any single token after the date is the id (issue 9 item 5); prose is a title.
    assert.equal(doc.entries[0].storyId, 'misc-cleanup');
    assert.equal(doc.entries[0].title, undefined);
    assert.equal(doc.entries[1].storyId, 'ZZ-999');
    assert.deepEqual(doc.problems, []);
    const prose = parseProgress('# Log\n\n## 2025-01-01 10:00 - Fixed the login page\n- x\n');
    assert.equal(prose.entries[0].storyId, undefined);
    assert.equal(prose.entries[0].title, 'Fixed the login page');
    assert.deepEqual(
      prose.problems.map((p) => [p.code, p.line]),
      [['no-story-id', 2]],
    );
  });

  it('does not take headings inside code fences for sections', () => {
    const t = '## 2025-01-01 - US-1\n- **Learnings for future iterations:**\n  - use this:\n    ```\n    ## 2025-01-02 - US-2\n    ```\n';
    const doc = parseProgress(t);
    assert.equal(doc.entries.length, 1);
    assert.equal(doc.entries[0].learnings.length, 1);
  });

  it('gives an empty model and a clear problem for empty and binary input', () => {
    for (const t of ['', '\n\n  \n']) {
      const doc = parseProgress(t);
      assert.equal(doc.entries.length, 0);
      assert.equal(doc.problems[0].code, 'empty');
      assert.match(doc.problems[0].message, /empty/);
    }
    const bin = parseProgressBytes(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0xff, 0xfe, 0x00]));
    assert.equal(bin.entries.length, 0);
    assert.equal(bin.problems[0].code, 'binary');
    assert.match(bin.problems[0].message, /does not look like text/);
  });

  it('parses a 1,000,000-line file without crashing', function () {
    this.timeout(60000);
    const block = ['## 2026-01-01 10:00 - US-001', '- did a thing', '- Files changed: a.ts', '- **Learnings for future iterations:**', '  - a learning', '---', ''];
    const parts: string[] = ['# Log', '', '## Codebase Patterns', '- p', ''];
    while (parts.length < 1_000_000) {
      parts.push(...block);
    }
    const doc = parseProgress(parts.join('\n'));
    assert.ok(doc.entries.length > 140_000);
    assert.equal(doc.patterns?.items.length, 1);
  });

  it('splits lines with every kind of line end', () => {
    assert.deepEqual(splitLines('a\r\nb\rc\nd').lines, ['a', 'b', 'c', 'd']);
    assert.deepEqual(splitLines('a\n').lines, ['a']);
    assert.equal(splitLines('a\n').finalEol, true);
  });
});

describe('progress.txt edits', () => {
  it('appends a codebase pattern after the last one, nothing else changes', () => {
    const out = applyTextEdits(demo, addCodebasePattern(demo, 'Use the new thing\nwith care'));
    const ls = lines(out);
    const i = at(out, 'Use the new thing with care');
    assert.equal(ls[i], '- Use the new thing with care');
    assert.match(ls[i - 1], /^- Quality gate per story/);
    assert.equal(out.replace(`${ls[i]}\n`, ''), demo);
  });

  it('creates the patterns section after the header, before the first entry, when missing', () => {
    const noPatterns = demo.replace(/## Codebase Patterns[\s\S]*?---\n\n/, '');
    const out = applyTextEdits(noPatterns, addCodebasePattern(noPatterns, 'P1'));
    const doc = parseProgress(out);
    assert.equal(doc.patterns?.items[0].text, 'P1');
    assert.equal(doc.header.endLine, doc.patterns?.line);
    assert.ok(doc.patterns!.line < doc.entries[0].line);
    assert.equal(doc.entries.length, 5);
    // Without any section: at the end, after a blank line.
    assert.equal(applyTextEdits('# Log\r\nStarted: x', addCodebasePattern('# Log\r\nStarted: x', 'p')), '# Log\r\nStarted: x\r\n\r\n## Codebase Patterns\r\n- p\r\n');
  });

  it('adds a learning to the newest entry of a story, in its style', () => {
    const out = applyTextEdits(demo, addLearning(demo, 'US-004', 'Remember this', now));
    const doc = parseProgress(out);
    const e = doc.entries[4];
    assert.equal(e.learnings[e.learnings.length - 1].text, 'Remember this');
    assert.equal(lines(out)[e.learnings[e.learnings.length - 1].line], '  - Remember this');
    assert.equal(doc.entries[3].learnings.length, 2);
    assert.equal(out.length, demo.length + '  - Remember this\n'.length);
  });

  it('creates the learnings heading in an entry that has none', () => {
    const t = '## 2026-01-01 10:00 - US-1\n- did\n- Files changed: a\n---\n\n## 2026-01-02 10:00 - US-2\n- x\n---\n';
    const out = applyTextEdits(t, addLearning(t, 'US-1', 'l', now));
    assert.equal(out, '## 2026-01-01 10:00 - US-1\n- did\n- Files changed: a\n- **Learnings for future iterations:**\n  - l\n---\n\n## 2026-01-02 10:00 - US-2\n- x\n---\n');
  });

  it('appends a new entry for a story without one, with a correct header', () => {
    const out = applyTextEdits(demo, addLearning(demo, 'US-009', 'New story learning', now));
    assert.ok(out.startsWith(demo));
    assert.equal(out.slice(demo.length), '\n## 2026-11-19 09:05 - US-009\n- **Learnings for future iterations:**\n  - New story learning\n---\n');
    const doc = parseProgress(out);
    assert.equal(doc.entries[5].storyId, 'US-009');
    assert.equal(doc.entries[5].learnings[0].text, 'New story learning');
  });

  it('writes a new entry in the file format: heading level, date format, separators, EOL', () => {
    const out = applyTextEdits(demo, newProgressEntry(demo, 'US-005', now, { title: 'Filter', summary: 'did a\ndid b' }));
    assert.equal(out.slice(demo.length), '\n## 2026-11-19 09:05 - US-005 - Filter\n- did a\n- did b\n---\n');
    const crlf = '### [2025-01-01 10:00:00] US-1\r\n- x\r\n';
    const out2 = applyTextEdits(crlf, newProgressEntry(crlf, 'US-2', now));
    assert.equal(out2, `${crlf}\r\n### 2026-11-19 09:05:07 - US-2\r\n`);
    // An empty file gets the standard header.
    assert.equal(
      applyTextEdits('', newProgressEntry('', 'US-1', now, { learnings: ['l'] })),
      '# Ralph Progress Log\nStarted: 2026-11-19 09:05:07\n---\n\n## 2026-11-19 09:05 - US-1\n- **Learnings for future iterations:**\n  - l\n---\n',
    );
  });

  it('formats dates like the file', () => {
    assert.equal(formatDate(now), '2026-11-19 09:05');
    assert.equal(formatDate(now, '2025-01-01'), '2026-11-19');
    assert.equal(formatDate(now, '2025-01-01T10:00:00Z'), '2026-11-19T09:05:07');
  });

  it('offers append-only forms when the edit is an append at the end', () => {
    assert.equal(newProgressEntryAppend(demo, 'US-5', now), '\n## 2026-11-19 09:05 - US-5\n---\n');
    assert.equal(addLearningAppend(demo, 'US-004', 'x', now), undefined);
    assert.equal(addLearningAppend(demo, 'US-077', 'x', now), '\n## 2026-11-19 09:05 - US-077\n- **Learnings for future iterations:**\n  - x\n---\n');
    const tail = '## 2026-01-01 - US-1\n- **Learnings for future iterations:**\n  - a\n';
    // Self-describing: a new entry of the story, right even when an agent appended meanwhile.
    assert.equal(addLearningAppend(tail, 'US-1', 'b', now), '\n## 2026-11-19 - US-1\n- **Learnings for future iterations:**\n  - b\n');
    assert.equal(addCodebasePatternAppend(demo, 'x'), undefined);
  });

  it('leaves binary files alone', () => {
    assert.deepEqual(addLearning('a\u0000b', 'US-1', 'x', now), []);
    assert.deepEqual(addCodebasePattern('a\u0000b', 'x'), []);
  });
});

describe('Learnings counts (issue 7 §1.5)', () => {
  it('count what the list shows after compaction: every learning of every story, compacted history included', () => {
    const entry = (i: number) => `## 2026-01-${String(i).padStart(2, '0')} - US-${String(i).padStart(3, '0')}\n- did\n- **Learnings for future iterations:**\n  - learning ${i}a\n  - learning ${i}b\n---\n`;
    const text = `# Log\n---\n\n${Array.from({ length: 12 }, (_, i) => entry(i + 1)).join('\n')}`;
    const compacted = planCompaction(text, { threshold: 10, keepRecentLines: 12 }).text;
    const doc = parseProgress(compacted);
    assert.ok(doc.entries.length < 12 && doc.compacted !== undefined);
    const groups = learningsByStory(doc);
    assert.equal(groups.reduce((n, g) => n + g.learnings.length, 0), 24);
    assert.deepEqual(learningCounts(groups), { learnings: 24, stories: 12 });
    assert.equal(describeLearningCounts(groups), '24 in 12 stories');
  });
});
