import assert from 'node:assert/strict';
import { firstInvalidUtf8, parsePrd, parsePrdBytes } from '../../src/core/prd/document';
import { LineIndex } from '../../src/core/text';
import { analyze, columnOf, lineOf, makePrd, where } from './helpers';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('parsing prd.json', () => {
  describe('malformed files', () => {
    it('reports a missing comma as a syntax error on the line where the next property starts', () => {
      const good = makePrd([{ id: 'US-001' }, { id: 'US-002' }]);
      // Drop the comma after US-002's title: the parser notices at the next property, one line down.
      const titleLine = `"title": "Story US-002",`;
      const text = good.replace(titleLine, titleLine.slice(0, -1));
      const a = analyze(text);
      const syntax = a.problems.filter((p) => p.code === 'syntax');
      assert.equal(syntax.length, 1);
      assert.match(syntax[0].message, /comma expected/);
      assert.deepEqual(where(syntax[0]), {
        line: lineOf(text, '"priority"', 1),
        column: columnOf(text, '"priority"', 1),
      });
      assert.equal(a.readable, false);
      // The stories around the error are still read, so the views can show them.
      assert.deepEqual(
        a.doc.stories.map((s) => s.id),
        ['US-001', 'US-002'],
      );
    });

    it('reports an empty file at line 1 as empty-file, not as a syntax error', () => {
      const a = analyze('');
      assert.deepEqual(
        a.problems.map((p) => [p.code, where(p).line, where(p).column]),
        [['empty-file', 1, 1]],
      );
      assert.match(a.problems[0].message, /empty/);
      assert.equal(a.doc.hasStories, false);
      assert.equal(a.readable, false);
    });

    it('treats a whitespace-only file as empty', () => {
      const a = analyze('  \n\t\r\n  ');
      assert.deepEqual(
        a.problems.map((p) => p.code),
        ['empty-file'],
      );
      assert.equal(a.readable, false);
    });

    it('reads a root array as the stories, with a shape warning that says what was found and how to fix it', () => {
      const a = analyze('\n[\n  {"id": "US-001", "title": "t", "description": "d", "acceptanceCriteria": [], "priority": 1, "passes": false}\n]\n');
      assert.deepEqual(a.problems.map((p) => [p.code, p.severity]), [['shape', 'warning']]);
      const [p] = a.problems;
      assert.match(p.message, /found a top-level array \(1 entry\): Ralph reads "userStories"/);
      assert.deepEqual(where(p), { line: 2, column: 1 });
      assert.equal(a.doc.hasStories, true);
      assert.equal(a.doc.shape.kind, 'array');
      assert.deepEqual(a.doc.stories.map((s) => [s.id, s.path]), [['US-001', [0]]]);
    });

    it('rejects null, numbers and strings at the root', () => {
      for (const [text, what] of [
        ['null', 'null'],
        ['42', 'a number'],
        ['"prd"', 'a string'],
      ]) {
        const a = analyze(text);
        assert.equal(a.problems.length, 1, text);
        assert.match(a.problems[0].message, new RegExp(`not ${what}$|not ${what}\\.`), text);
      }
    });

    it('reports a wrong-typed value (passes: "yes") at the value itself, as a type error', () => {
      const text = makePrd([{ id: 'US-001' }, { id: 'US-002', passes: 'yes' as unknown as boolean }]);
      const a = analyze(text);
      assert.equal(a.problems.length, 1);
      const [p] = a.problems;
      assert.equal(p.code, 'schema');
      assert.equal(p.storyId, 'US-002');
      assert.equal(p.storyIndex, 1);
      assert.match(p.message, /userStories\[1\]\.passes: expected a boolean, got a string \("yes"\)/);
      assert.doesNotMatch(p.message, /missing/);
      assert.deepEqual(where(p), { line: lineOf(text, '"yes"', 0), column: columnOf(text, '"yes"', 0) });
      // Read leniently: a non-boolean passes counts as not passing.
      assert.equal(a.doc.stories[1].passes, false);
    });

    it('reports "userStories" that is not an array as a type error', () => {
      const a = analyze('{\n  "userStories": {}\n}');
      assert.equal(a.problems.length, 1);
      assert.match(a.problems[0].message, /userStories: expected an array of stories, got an object/);
      assert.equal(where(a.problems[0]).line, 2);
    });

    it('reports a story that is not an object at its element', () => {
      const a = analyze('{\n  "userStories": [\n    42\n  ]\n}');
      assert.equal(a.problems.length, 1);
      assert.match(a.problems[0].message, /userStories\[0\]: expected a story object, got a number/);
      assert.deepEqual(where(a.problems[0]), { line: 3, column: 5 });
    });

    it('reports a missing title as a warning at the opening brace of the story, naming the story', () => {
      const text = makePrd([{ id: 'US-001' }, { id: 'US-002', title: undefined }]).replace(
        /\n\s*"title": "Story US-002",/,
        '',
      );
      const a = analyze(text);
      assert.equal(a.problems.length, 1);
      const [p] = a.problems;
      assert.equal(p.code, 'missing-field');
      assert.equal(p.severity, 'warning');
      assert.match(p.message, /Story US-002 has no "title"/);
      assert.equal(a.readable, true);
      assert.equal(p.storyId, 'US-002');
      // The object's `{` is on the line before the id.
      assert.equal(where(p).line, lineOf(text, '"id": "US-002"') - 1);
      assert.equal(text.slice(p.range.offset, p.range.offset + 1), '{');
    });

    it('reports a missing userStories at the root object', () => {
      const a = analyze('{\n  "projectName": "x"\n}\n');
      assert.equal(a.problems.length, 1);
      assert.equal(a.problems[0].code, 'no-stories');
      assert.match(a.problems[0].message, /has no list of stories: Ralph reads a "userStories" array/);
      assert.equal(a.doc.hasStories, false);
    });

    it('reports comments as syntax errors, at the comment', () => {
      const text = '{\n  "userStories": [\n    // the first story\n  ]\n}\n';
      const a = analyze(text);
      const syntax = a.problems.filter((p) => p.code === 'syntax');
      assert.ok(syntax.length >= 1);
      assert.match(syntax[0].message, /comments are not allowed/);
      assert.deepEqual(where(syntax[0]), { line: 3, column: 5 });
      assert.equal(a.readable, false);
    });

    it('reports a trailing comma as a syntax error', () => {
      const a = analyze('{\n  "userStories": [],\n}\n');
      assert.ok(a.problems.some((p) => p.code === 'syntax' && where(p).line === 3));
      assert.equal(a.readable, false);
    });
  });

  describe('valid files', () => {
    it('accepts unknown fields anywhere without a problem', () => {
      const text = makePrd([{ id: 'US-001', estimate: 3, labels: ['ui'], owner: { name: 'x' } }], {
        version: 2,
        'x-tool': { a: 1 },
      });
      const a = analyze(text);
      assert.deepEqual(a.problems, []);
      assert.equal(a.readable, true);
      assert.equal(a.doc.stories[0].id, 'US-001');
    });

    it('accepts a plain snarktank-style prd.json without blockedBy', () => {
      const text = `{
  "project": "MyApp",
  "branchName": "ralph/task-priority",
  "description": "Task Priority System - add priority levels to tasks",
  "userStories": [
    {
      "id": "US-001",
      "title": "Add priority field to database",
      "description": "As a developer, I need to store task priority so it persists across sessions.",
      "acceptanceCriteria": ["Add a priority column", "Typecheck passes"],
      "priority": 1,
      "passes": true,
      "notes": ""
    },
    {
      "id": "US-002",
      "title": "Display priority indicator on task cards",
      "description": "As a user, I want to see task priority at a glance.",
      "acceptanceCriteria": ["Each task card shows a badge", "Verify in browser"],
      "priority": 2,
      "passes": false,
      "notes": ""
    }
  ]
}
`;
      const a = analyze(text);
      assert.deepEqual(a.problems, []);
      assert.equal(a.readable, true);
      assert.equal(a.doc.branchName, 'ralph/task-priority');
      assert.deepEqual(
        a.doc.stories.map((s) => s.blockedBy),
        [[], []],
      );
      assert.equal(a.readiness.next?.story.id, 'US-002');
    });

    it('reads every field of a story with its positions', () => {
      const text = makePrd([
        { id: 'US-001', passes: true },
        {
          id: 'US-002',
          title: 'Second',
          priority: 7,
          description: 'Do it',
          acceptanceCriteria: ['one', 'two'],
          blockedBy: ['US-001'],
          notes: 'n',
        },
      ]);
      const doc = parsePrd(text);
      assert.equal(doc.projectName, 'Demo');
      assert.equal(doc.branchName, 'ralph/demo');
      assert.equal(doc.description, 'A demo feature.');
      const s = doc.stories[1];
      assert.equal(s.index, 1);
      assert.equal(s.title, 'Second');
      assert.equal(s.priority, 7);
      assert.equal(s.passes, false);
      assert.equal(s.description, 'Do it');
      assert.deepEqual(s.acceptanceCriteria, ['one', 'two']);
      assert.equal(s.notes, 'n');
      assert.deepEqual(
        s.blockedBy.map((b) => [b.id, b.elementIndex, b.range.start.line + 1]),
        [['US-001', 0, lineOf(text, '"US-001"', 1)]],
      );
      assert.equal(s.idRange.start.line + 1, lineOf(text, '"US-002"'));
      assert.equal(text.slice(s.idRange.offset, s.idRange.offset + s.idRange.length), '"US-002"');
      assert.equal(text.slice(s.passesRange!.offset, s.passesRange!.offset + s.passesRange!.length), 'false');
      assert.equal(text[s.range.offset], '{');
      assert.equal(text[s.range.offset + s.range.length - 1], '}');
      assert.deepEqual(
        s.criteriaRanges.map((r) => r.start.line + 1),
        [lineOf(text, '"one"'), lineOf(text, '"two"')],
      );
    });

    it('strips a BOM from a string and from bytes, keeping positions relative to the text', () => {
      const text = makePrd([{ id: 'US-001', blockedBy: ['NOPE'] }]);
      for (const input of [`\ufeff${text}`, new Uint8Array([0xef, 0xbb, 0xbf, ...enc(text)])]) {
        const a = analyze(input);
        assert.equal(a.doc.text.charCodeAt(0), '{'.charCodeAt(0));
        assert.deepEqual(
          a.problems.map((p) => [p.code, where(p).line, where(p).column]),
          [['unknown-blocked-by', lineOf(text, '"NOPE"'), columnOf(text, '"NOPE"')]],
        );
      }
    });

    it('gives the same lines with CRLF line endings as with LF', () => {
      const lf = makePrd([{ id: 'A', blockedBy: ['B'] }, { id: 'B', blockedBy: ['A'] }, { id: 'C', passes: 'no' as unknown as boolean }]);
      const crlf = lf.replace(/\n/g, '\r\n');
      const a = analyze(lf);
      const b = analyze(crlf);
      assert.ok(a.problems.length >= 2);
      assert.deepEqual(
        b.problems.map((p) => [p.code, where(p)]),
        a.problems.map((p) => [p.code, where(p)]),
      );
      assert.equal(b.doc.lines.lineCount, a.doc.lines.lineCount);
    });

    it('reads old Mac CR-only line endings as line breaks', () => {
      const cr = makePrd([{ id: 'A', blockedBy: ['Z'] }]).replace(/\n/g, '\r');
      const a = analyze(cr);
      assert.equal(where(a.problems[0]).line, lineOf(cr, '"Z"'));
    });
  });

  describe('bytes and encodings', () => {
    it('reports invalid UTF-8 at the line of the bad byte and still parses the rest', () => {
      const text = makePrd([{ id: 'US-001', title: 'Café' }, { id: 'US-002', title: 'Broken XX here' }, { id: 'US-003' }]);
      const bytes = enc(text);
      const at = Buffer.from(bytes).indexOf('XX');
      bytes[at] = 0xff;
      const a = analyze(bytes);
      const encoding = a.problems.filter((p) => p.code === 'encoding');
      assert.equal(encoding.length, 1);
      assert.match(encoding[0].message, /not valid UTF-8: byte 0xff at byte offset \d+/);
      assert.equal(where(encoding[0]).line, lineOf(text, 'Broken XX'));
      // Column counts characters, not bytes: "é" before it on another line does not matter, and
      // the bad byte sits where the first X was.
      assert.equal(where(encoding[0]).column, columnOf(text, 'XX'));
      assert.deepEqual(
        a.doc.stories.map((s) => s.id),
        ['US-001', 'US-002', 'US-003'],
      );
      assert.equal(a.doc.stories[0].title, 'Café');
      assert.equal(a.readable, false);
    });

    it('counts multi-byte characters before the bad byte as one column each', () => {
      const text = '{"userStories": [], "x": "ééé\u{1F600}Z"}';
      const bytes = enc(text);
      const at = Buffer.from(bytes).indexOf('Z');
      bytes[at] = 0xc0; // never valid in UTF-8
      const [p] = parsePrdBytes(bytes).problems;
      assert.equal(p.code, 'encoding');
      assert.equal(p.range.offset, text.indexOf('Z'));
    });

    it('finds the first invalid byte exactly as a strict decoder would', () => {
      const cases: [number[], number][] = [
        [[0x41, 0x42], -1],
        [[0xc3, 0xa9], -1], // é
        [[0xf0, 0x9f, 0x98, 0x80], -1], // 😀
        [[0x41, 0xc0, 0x80], 1], // overlong NUL
        [[0xe0, 0x80, 0x80], 0], // overlong 3-byte
        [[0xed, 0xa0, 0x80], 0], // UTF-16 surrogate
        [[0xf4, 0x90, 0x80, 0x80], 0], // above U+10FFFF
        [[0x41, 0xe2, 0x82], 1], // truncated at the end
        [[0x80], 0], // lone continuation byte
        [[0x41, 0xc3, 0x41], 1], // missing continuation
      ];
      for (const [bytes, expected] of cases) {
        assert.equal(firstInvalidUtf8(new Uint8Array(bytes)), expected, bytes.map((b) => b.toString(16)).join(' '));
      }
    });
  });

  describe('LineIndex', () => {
    it('maps offsets to 0-based lines and characters for LF, CRLF and CR', () => {
      const li = new LineIndex('ab\ncd\r\nef\rgh');
      assert.equal(li.lineCount, 4);
      assert.deepEqual(li.positionAt(0), { line: 0, character: 0 });
      assert.deepEqual(li.positionAt(2), { line: 0, character: 2 });
      assert.deepEqual(li.positionAt(3), { line: 1, character: 0 });
      assert.deepEqual(li.positionAt(7), { line: 2, character: 0 });
      assert.deepEqual(li.positionAt(10), { line: 3, character: 0 });
      assert.deepEqual(li.positionAt(12), { line: 3, character: 2 });
    });

    it('clamps offsets outside the text', () => {
      const li = new LineIndex('ab\ncd');
      assert.deepEqual(li.positionAt(-5), { line: 0, character: 0 });
      assert.deepEqual(li.positionAt(99), { line: 1, character: 2 });
      assert.deepEqual(li.range(3, 2), { offset: 3, length: 2, start: { line: 1, character: 0 }, end: { line: 1, character: 2 } });
    });
  });
});
