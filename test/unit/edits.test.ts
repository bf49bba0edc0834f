import assert from 'node:assert/strict';
import { applyEdits, fixEdits, removeBlockedByEdits, setPassesEdits } from '../../src/core/prd/edits';
import { jsonStyleOf } from '../../src/core/prd/jsonEdits';
import { analyze, makePrd } from './helpers';

/** The one changed span between two texts, as [before, after] (common prefix and suffix removed). */
function changedSpan(before: string, after: string): [string, string] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) {
    start++;
  }
  let endB = before.length;
  let endA = after.length;
  while (endB > start && endA > start && before[endB - 1] === after[endA - 1]) {
    endB--;
    endA--;
  }
  return [before.slice(start, endB), after.slice(start, endA)];
}

const stories = [
  { id: 'US-001', passes: true, 'x-estimate': 3, labels: ['db'] },
  { id: 'US-002', blockedBy: ['US-001'], owner: { name: 'Ann', since: '2025-01-01' } },
  { id: 'US-003', blockedBy: ['US-001', 'US-002'], notes: 'keep me' },
];

const flavours: [string, string][] = [
  ['2 spaces, LF', makePrd(stories, { 'x-tool': { version: 2 } })],
  ['4 spaces, LF', makePrd(stories, { 'x-tool': { version: 2 } }, 4)],
  ['tabs, CRLF', makePrd(stories, { 'x-tool': { version: 2 } }, '\t').replace(/\n/g, '\r\n')],
  ['one line', JSON.stringify(JSON.parse(makePrd(stories)))],
  [
    'hand-formatted, inline arrays',
    '{\n  "userStories": [\n    { "id": "US-001", "title": "a", "priority": 1, "passes": true,  "description": "", "acceptanceCriteria": [] },\n' +
      '    { "id": "US-002", "title": "b", "priority": 2, "passes": false, "description": "", "acceptanceCriteria": [], "blockedBy": ["US-001"] },\n' +
      '    { "id": "US-003", "title": "c", "priority": 3, "passes": false, "description": "", "acceptanceCriteria": [], "blockedBy": ["US-001", "US-002"] }\n  ]\n}\n',
  ],
];

describe('edits to prd.json', () => {
  describe('setPassesEdits', () => {
    for (const [name, text] of flavours) {
      it(`changes only the passes token (${name})`, () => {
        for (const [index, value] of [
          [1, true],
          [0, false],
        ] as const) {
          const edits = setPassesEdits(text, index, value);
          const after = applyEdits(text, edits);
          assert.deepEqual(changedSpan(text, after), value ? ['fals', 'tru'] : ['tru', 'fals']);
          const before = JSON.parse(text);
          const parsed = JSON.parse(after);
          before.userStories[index].passes = value;
          assert.deepEqual(parsed, before);
          // Line endings and indentation are untouched: only the token moved.
          assert.equal(after.split('\r\n').length, text.split('\r\n').length);
        }
      });
    }

    it('leaves the text identical when passes already has that value', () => {
      const text = flavours[2][1];
      assert.equal(applyEdits(text, setPassesEdits(text, 0, true)), text);
    });

    it('adds passes to a story that lacks it, keeping the data', () => {
      const text = '{\n  "userStories": [\n    {\n      "id": "A",\n      "extra": 1\n    }\n  ]\n}\n';
      const after = applyEdits(text, setPassesEdits(text, 0, true));
      assert.deepEqual(JSON.parse(after), { userStories: [{ id: 'A', extra: 1, passes: true }] });
    });
  });

  describe('removeBlockedByEdits', () => {
    const cases: [string, string[], number, string[]][] = [
      ['first of three', ['A', 'B', 'C'], 0, ['B', 'C']],
      ['middle of three', ['A', 'B', 'C'], 1, ['A', 'C']],
      ['last of three', ['A', 'B', 'C'], 2, ['A', 'B']],
      ['last of two', ['A', 'B'], 1, ['A']],
      ['the only one', ['A'], 0, []],
    ];
    const layouts: [string, (list: string[]) => string][] = [
      ['multi-line LF', (list) => makePrd([{ id: 'S', blockedBy: list, after: 1 }])],
      ['multi-line CRLF tabs', (list) => makePrd([{ id: 'S', blockedBy: list, after: 1 }], {}, '\t').replace(/\n/g, '\r\n')],
      ['inline', (list) => `{"userStories": [{"id": "S", "blockedBy": [${list.map((x) => `"${x}"`).join(', ')}], "after": 1}]}`],
      ['one line, no spaces', (list) => JSON.stringify({ userStories: [{ id: 'S', blockedBy: list, after: 1 }] })],
    ];
    for (const [layout, build] of layouts) {
      for (const [what, list, k, expected] of cases) {
        it(`removes the ${what} (${layout}) and keeps valid JSON`, () => {
          const text = build(list);
          const after = applyEdits(text, removeBlockedByEdits(text, 0, k));
          const parsed = JSON.parse(after);
          assert.deepEqual(parsed.userStories[0].blockedBy, expected);
          assert.equal(parsed.userStories[0].after, 1);
          // Only the array changed: everything before its "[" and after its "]" is byte-identical.
          const open = text.indexOf('[', text.indexOf('"blockedBy"'));
          const close = text.indexOf(']', open);
          assert.equal(after.slice(0, open + 1), text.slice(0, open + 1));
          assert.equal(after.slice(after.length - (text.length - close)), text.slice(close));
          // And only the removed element left the array.
          assert.ok(!after.slice(open, after.length - (text.length - close) + 1).includes(`"${list[k]}"`));
        });
      }
    }

    it('keeps the other elements\' line layout in a multi-line array', () => {
      const text = makePrd([{ id: 'S', blockedBy: ['A', 'B', 'C'] }]);
      const after = applyEdits(text, removeBlockedByEdits(text, 0, 1));
      assert.ok(after.includes('"blockedBy": [\n        "A",\n        "C"\n      ]'), after);
    });

    it('returns no edits for an element or story that does not exist', () => {
      const text = makePrd([{ id: 'S', blockedBy: ['A'] }, { id: 'T' }]);
      assert.deepEqual(removeBlockedByEdits(text, 0, 5), []);
      assert.deepEqual(removeBlockedByEdits(text, 1, 0), []);
      assert.deepEqual(removeBlockedByEdits(text, 9, 0), []);
    });

    it('removes an entry named by a validation quick fix, leaving a valid file', () => {
      const text = makePrd([{ id: 'A' }, { id: 'B', blockedBy: ['A', 'GHOST'] }], {}, 4);
      const fix = analyze(text).problems[0].fixes![0];
      const after = applyEdits(text, fixEdits(text, fix));
      assert.deepEqual(analyze(after).problems, []);
    });
  });

  describe('applyEdits', () => {
    it('applies several edits against the original offsets, in any order', () => {
      const text = '0123456789';
      const out = applyEdits(text, [
        { offset: 1, length: 2, content: 'ab' },
        { offset: 8, length: 0, content: 'X' },
        { offset: 5, length: 1, content: '' },
      ]);
      assert.equal(out, '0ab34' + '67X89');
    });

    it('is the identity for no edits', () => {
      assert.equal(applyEdits('{"a":1}', []), '{"a":1}');
    });

    it('combines two passes edits on different stories', () => {
      const text = flavours[0][1];
      const after = applyEdits(text, [...setPassesEdits(text, 1, true), ...setPassesEdits(text, 2, true)]);
      assert.deepEqual(
        JSON.parse(after).userStories.map((s: { passes: boolean }) => s.passes),
        [true, true, true],
      );
    });
  });

  describe('jsonStyleOf', () => {
    it('detects tabs, space width, line endings and one-line spacing', () => {
      assert.deepEqual(jsonStyleOf('{\n\t"a": 1\n}'), { unit: '\t', eol: '\n', colon: ': ', comma: ', ' });
      assert.deepEqual(jsonStyleOf('{\r\n    "a": 1\r\n}'), { unit: '    ', eol: '\r\n', colon: ': ', comma: ', ' });
      assert.deepEqual(jsonStyleOf('{"a":1,"b":2}'), { unit: '  ', eol: '\n', colon: ':', comma: ',' });
    });
  });
});
