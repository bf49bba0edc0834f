/**
 * The task graph's edits on every shape the prd model reads (issue 10, Editing): each edit
 * addresses the story where the model found it, so {"stories": […]}, {"prd": {"stories": […]}},
 * a top-level array and real users' files are edited like {"userStories": […]}. Each edit changes
 * only the story's own span (the list's, for a new story): formatting, key order and unknown
 * fields outside it are byte-identical.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parseTree } from 'jsonc-parser';
import { applyEdits, type TextEdit } from '../../src/core/prd/edits';
import { addDependencyEdits, addStoryEdits, removeDependencyEdits, setStoryFieldEdits, type GraphEditResult } from '../../src/core/prd/graphEdits';
import { analyzePrd } from '../../src/core/prd/index';
import type { JsonPath, Story } from '../../src/core/prd/model';

const REAL = '../shared/fixtures/real/prd';

type Key = 'blockedBy' | 'dependsOn' | 'depends_on';

function stories(key: Key): Record<string, unknown>[] {
  return [
    { id: 'A', title: 'First', description: 'a', acceptanceCriteria: ['x'], priority: 1, passes: true, custom: { keep: [1, 2] } },
    { id: 'B', zeta: 'unknown first', title: 'Second', description: 'b', acceptanceCriteria: ['y'], priority: 2, passes: false, [key]: ['A'] },
    { id: 'C', title: 'Third', description: 'c', acceptanceCriteria: [], priority: 3, passes: false, [key]: ['B'], notes: '' },
    { id: 'D', title: 'Fourth', description: 'd', priority: 4, passes: false },
  ];
}

interface Shape {
  readonly name: string;
  readonly kind: string;
  text(key: Key): string;
}

const SHAPES: readonly Shape[] = [
  { name: '"userStories"', kind: 'standard', text: (k) => `${JSON.stringify({ project: 'p', userStories: stories(k), trailing: { x: 1 } }, null, 2)}\n` },
  { name: '"stories"', kind: 'other-key', text: (k) => `${JSON.stringify({ project: 'p', stories: stories(k), after: true }, null, 4)}\n` },
  { name: '"prd.stories"', kind: 'wrapper', text: (k) => JSON.stringify({ version: 2, prd: { branchName: 'b', stories: stories(k), extra: null }, tail: 'z' }, null, '\t') },
  { name: 'a top-level array', kind: 'array', text: (k) => `${JSON.stringify(stories(k), null, 2).replace(/\n/g, '\r\n')}\r\n` },
  { name: 'a one-line file', kind: 'standard', text: (k) => JSON.stringify({ project: 'p', userStories: stories(k) }) },
  {
    name: 'one line per story, 4 spaces',
    kind: 'other-key',
    text: (k) => `{\n    "project": "p",\n    "stories": [\n${stories(k).map((s) => `        ${JSON.stringify(s).replace(/,"/g, ', "').replace(/":/g, '": ')}`).join(',\n')}\n    ]\n}\n`,
  },
  {
    // JSON.parse keeps the last copy of a repeated key, and so does the model: edits must address it
    name: 'repeated keys (a decoy list, decoy titles and dependency lists before the real ones)',
    kind: 'standard',
    text: (k) =>
      JSON.stringify({ project: 'p', userStories: stories(k) }, null, 2)
        .replace('"userStories": [', '"userStories": [{ "id": "DECOY" }],\n  "userStories": [')
        .replace(/"title": /g, '"title": "decoy",\n      "title": ')
        .replace(new RegExp(`"${k}": \\[`, 'g'), `"${k}": ["D"],\n      "${k}": [`),
  },
];

/** The file's own layout is kept by an edit: a one-line file stays one line; new lines are indented with the file's unit. */
function assertLayoutKept(before: string, after: string): void {
  if (!before.includes('\n')) {
    assert.ok(!after.includes('\n'), `a one-line file stays one line: ${after}`);
    return;
  }
  const unit = /\n([ \t]+)\S/.exec(before)?.[1] ?? '  ';
  const old = new Set(before.split(/\r?\n/));
  for (const line of after.split(/\r?\n/)) {
    if (!old.has(line)) {
      const indent = /^[ \t]*/.exec(line)?.[0] ?? '';
      assert.equal(indent.replaceAll(unit, ''), '', `the new line ${JSON.stringify(line)} is indented with the file's unit ${JSON.stringify(unit)}`);
    }
  }
  if (before.includes('\r\n')) {
    assert.ok(!/[^\r]\n/.test(after), 'CRLF line endings are kept');
  }
}

function ok(r: GraphEditResult): TextEdit[] {
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.ok ? r.edits : [];
}

function storyOf(text: string, id: string): Story {
  const s = analyzePrd(text).doc.stories.find((x) => x.id === id);
  assert.ok(s, `story ${id} is read`);
  return s;
}

/** The span of the value at `path` in the text (a story, a list), where JSON.parse reads it (the last copy of a repeated key). */
function spanAt(text: string, path: JsonPath): { start: number; end: number } {
  let node = parseTree(text);
  for (const seg of path) {
    node = typeof seg === 'number' ? node?.children?.[seg] : node?.children?.filter((p) => p.children?.[0]?.value === seg).at(-1)?.children?.[1];
  }
  assert.ok(node, `something at ${JSON.stringify(path)}`);
  return { start: node.offset, end: node.offset + node.length };
}

/** Everything before `span.start` and after `span.end` of `before` is unchanged in `after`. */
function assertOnlyInside(before: string, after: string, span: { start: number; end: number }): void {
  assert.equal(after.slice(0, span.start), before.slice(0, span.start), 'bytes before the span are kept');
  assert.equal(after.slice(after.length - (before.length - span.end)), before.slice(span.end), 'bytes after the span are kept');
}

/** Applies an edit of story `id` and checks it stays inside the story's span; returns the new text. */
function editStory(text: string, id: string, r: GraphEditResult): string {
  const before = storyOf(text, id);
  const edits = ok(r);
  for (const e of edits) {
    assert.ok(e.offset >= before.range.offset && e.offset + e.length <= before.range.offset + before.range.length, 'the edit lies inside the story');
  }
  const out = applyEdits(text, edits);
  assertOnlyInside(text, out, { start: before.range.offset, end: before.range.offset + before.range.length });
  assertLayoutKept(text, out);
  return out;
}

/** The data of every other story, as the model reads it, is unchanged. */
function othersKept(before: string, after: string, id: string): void {
  const pick = (t: string): unknown[] =>
    analyzePrd(t)
      .doc.stories.filter((s) => s.id !== id)
      .map((s) => ({ id: s.id, title: s.title, deps: s.dependencies, priority: s.priority, criteria: s.acceptanceCriteria, path: s.path }));
  assert.deepEqual(pick(after), pick(before));
}

describe('task graph edits on every prd shape', () => {
  for (const shape of SHAPES) {
    describe(shape.name, () => {
      it('is read as that shape', () => {
        assert.equal(analyzePrd(shape.text('blockedBy')).doc.shape.kind, shape.kind);
      });

      for (const key of ['blockedBy', 'dependsOn', 'depends_on'] as const) {
        it(`adds a dependency under the story's own key (${key}), only inside the story`, () => {
          const text = shape.text(key);
          const out = editStory(text, 'B', addDependencyEdits(text, 'B', 'D'));
          const b = storyOf(out, 'B');
          assert.deepEqual(b.dependencies, ['A', 'D']);
          assert.equal(b.dependencyKey, key);
          assert.ok(analyzePrd(out).readable);
          othersKept(text, out, 'B');
        });

        it(`a story without a list gets the key most stories use (${key})`, () => {
          const text = shape.text(key);
          const out = editStory(text, 'D', addDependencyEdits(text, 'D', 'C'));
          const d = storyOf(out, 'D');
          assert.deepEqual(d.dependencies, ['C']);
          assert.equal(d.dependencyKey, key);
          othersKept(text, out, 'D');
        });

        it(`removes a dependency from the story's own key (${key}), only inside the story`, () => {
          const text = shape.text(key);
          const out = editStory(text, 'C', removeDependencyEdits(text, 'C', 'B'));
          const c = storyOf(out, 'C');
          assert.deepEqual(c.dependencies, []);
          assert.equal(c.dependencyKey, key, 'an empty list stays under its key');
          othersKept(text, out, 'C');
          const r = removeDependencyEdits(out, 'C', 'B');
          assert.equal(r.ok, false);
          assert.match(!r.ok ? r.message : '', /C does not wait on B/);
        });

        it(`refuses a dependency that closes a cycle (${key}), and names the cycle`, () => {
          const text = shape.text(key);
          const r = addDependencyEdits(text, 'A', 'C');
          assert.equal(r.ok, false);
          assert.deepEqual(!r.ok && r.cycle, ['A', 'B', 'C', 'A']);
          assert.match(!r.ok ? r.message : '', /A cannot wait on C: that would close the cycle A → B → C → A/);
        });
      }

      it('sets title, description, priority and acceptance criteria, only inside the story', () => {
        const text = shape.text('dependsOn');
        let out = editStory(text, 'B', setStoryFieldEdits(text, 'B', 'title', 'New <b>title</b>'));
        out = editStory(out, 'B', setStoryFieldEdits(out, 'B', 'description', 'line 1\nline "2"'));
        out = editStory(out, 'B', setStoryFieldEdits(out, 'B', 'priority', '7'));
        out = editStory(out, 'B', setStoryFieldEdits(out, 'B', 'acceptanceCriteria', 'one\n\n two '));
        const b = storyOf(out, 'B');
        assert.equal(b.title, 'New <b>title</b>');
        assert.equal(b.description, 'line 1\nline "2"');
        assert.equal(b.priority, 7);
        assert.deepEqual(b.acceptanceCriteria, ['one', 'two']);
        assert.deepEqual(b.dependencies, ['A']);
        othersKept(text, out, 'B');
        // key order and unknown fields of the edited story are kept
        const raw = (t: string): Record<string, unknown> => {
          const s = storyOf(t, 'B');
          return JSON.parse(t.slice(s.range.offset, s.range.offset + s.range.length)) as Record<string, unknown>;
        };
        assert.deepEqual(Object.keys(raw(out)), Object.keys(raw(text)));
        assert.equal(raw(out).zeta, 'unknown first');
        // a criteria field the story lacks is added inside it
        const d = editStory(out, 'D', setStoryFieldEdits(out, 'D', 'acceptanceCriteria', ['z']));
        assert.deepEqual(storyOf(d, 'D').acceptanceCriteria, ['z']);
      });

      it('adds a story to the list the stories live in, only inside that list', () => {
        const text = shape.text('depends_on');
        const list = analyzePrd(text).doc.stories[0].path.slice(0, -1);
        const r = addStoryEdits(text, 'Export as CSV', ['D']);
        const out = applyEdits(text, ok(r));
        const lastStory = storyOf(text, 'D').range;
        assertOnlyInside(text, out, { start: lastStory.offset + lastStory.length, end: spanAt(text, list).end });
        assertLayoutKept(text, out);
        const a = analyzePrd(out);
        assert.equal(a.doc.shape.kind, shape.kind);
        assert.deepEqual(a.doc.stories.map((s) => s.id), ['A', 'B', 'C', 'D', 'US-001']);
        const e = a.doc.stories[4];
        assert.equal(r.ok && r.id, 'US-001');
        assert.equal(e.title, 'Export as CSV');
        assert.equal(e.passes, false);
        assert.deepEqual(e.dependencies, ['D']);
        assert.equal(e.dependencyKey, 'depends_on');
        assert.deepEqual(e.path, [...list, 4]);
        assert.ok(a.readable);
      });
    });
  }

  describe('a real file with {"stories": […]} and "dependencies" (77smith-norm/applspeech)', () => {
    const text = readFileSync(`${REAL}/77smith-norm__applspeech__prd.json`, 'utf8');

    it('adds and removes a dependency under "dependencies", byte-identical outside the story', () => {
      assert.equal(analyzePrd(text).doc.shape.kind, 'other-key');
      const added = editStory(text, 'S05-url-transcription', addDependencyEdits(text, 'S05-url-transcription', 'S04-locale-support'));
      const s = storyOf(added, 'S05-url-transcription');
      assert.deepEqual(s.dependencies, ['S02-transcribe-file', 'S04-locale-support']);
      assert.equal(s.dependencyKey, 'dependencies');
      othersKept(text, added, 'S05-url-transcription');
      const removed = editStory(added, 'S05-url-transcription', removeDependencyEdits(added, 'S05-url-transcription', 'S04-locale-support'));
      assert.equal(removed, text, 'add then remove gives the file back byte for byte');
    });

    it('refuses a cycle', () => {
      const r = addDependencyEdits(text, 'S02-transcribe-file', 'S09-cli-polish');
      assert.equal(r.ok, false);
      assert.deepEqual(!r.ok && r.cycle?.[0], 'S02-transcribe-file');
    });

    it('sets fields in the story, criteria under the "acceptance_criteria" key it uses', () => {
      const id = 'S06-telegram-source';
      let out = editStory(text, id, setStoryFieldEdits(text, id, 'title', 'Telegram'));
      out = editStory(out, id, setStoryFieldEdits(out, id, 'description', 'From a chat'));
      out = editStory(out, id, setStoryFieldEdits(out, id, 'priority', 12));
      out = editStory(out, id, setStoryFieldEdits(out, id, 'acceptanceCriteria', ['works']));
      const s = storyOf(out, id);
      assert.deepEqual([s.title, s.description, s.priority, s.acceptanceCriteria], ['Telegram', 'From a chat', 12, ['works']]);
      const raw = JSON.parse(out.slice(s.range.offset, s.range.offset + s.range.length)) as Record<string, unknown>;
      assert.equal(raw.acceptanceCriteria, undefined, 'no second criteria key');
      othersKept(text, out, id);
    });

    it('adds a story at the end of "stories" with the next id', () => {
      const r = addStoryEdits(text, 'New thing', ['S09-cli-polish']);
      const out = applyEdits(text, ok(r));
      assertOnlyInside(text, out, spanAt(text, ['stories']));
      const last = analyzePrd(out).doc.stories.at(-1);
      assert.equal(last?.idDerived, false);
      assert.equal(r.ok && r.id, last?.id);
      assert.equal(analyzePrd(out).doc.stories.filter((s) => s.id === last?.id).length, 1, 'a new id');
      assert.deepEqual(last?.path, ['stories', 9]);
      assert.deepEqual(last?.dependencies, ['S09-cli-polish']);
      assert.equal(last?.dependencyKey, 'dependencies');
    });
  });

  describe('stories without ids (EuanMorgan/hitster, a top-level array)', () => {
    const text = readFileSync(`${REAL}/EuanMorgan__hitster__plans__prd.json`, 'utf8');

    it('adds a story with a real id, not one shaped like a position', () => {
      const r = addStoryEdits(text, 'One more');
      const out = applyEdits(text, ok(r));
      assertOnlyInside(text, out, spanAt(text, []));
      const last = analyzePrd(out).doc.stories.at(-1);
      assert.equal(last?.idDerived, false);
      assert.equal(last?.id, 'US-001');
    });

    it('edits a story found by its position label; refuses it as a blocker (it has no id to name)', () => {
      const out = editStory(text, '#2', setStoryFieldEdits(text, '#2', 'title', 'Vitest'));
      assert.equal(analyzePrd(out).doc.stories[1].title, 'Vitest');
      const r = addDependencyEdits(text, '#3', '#2');
      assert.equal(r.ok, false);
      assert.match(!r.ok ? r.message : '', /#2 has no id/);
    });
  });

  it('refuses to add a story only when no story list can be found', () => {
    for (const text of ['{"project": "x"}', '{"userStories": {"a": 1}}', '"text"']) {
      const r = addStoryEdits(text, 'T');
      assert.equal(r.ok, false, text);
      assert.match(!r.ok ? r.message : '', /no list of stories/);
    }
    assert.ok(addStoryEdits('{"stories": []}', 'T').ok);
    assert.ok(addStoryEdits('[]', 'T').ok);
  });

  it('phases: a new story goes to the list of the last story', () => {
    const text = JSON.stringify({ phases: [{ name: 'one', stories: [{ id: 'P-1', title: 't' }] }, { name: 'two', stories: [{ id: 'P-2', title: 'u' }] }, { name: 'empty' }] }, null, 2);
    const out = applyEdits(text, ok(addStoryEdits(text, 'Third', ['P-1'])));
    assertOnlyInside(text, out, spanAt(text, ['phases', 1, 'stories']));
    const s = analyzePrd(out).doc.stories.at(-1);
    assert.deepEqual([s?.id, s?.path], ['P-3', ['phases', 1, 'stories', 1]]);
    const dep = editStory(out, 'P-2', addDependencyEdits(out, 'P-2', 'P-1'));
    assert.deepEqual(storyOf(dep, 'P-2').dependencies, ['P-1']);
  });

  it('removing a blocker named twice (or under two keys) removes every mention', () => {
    const text = JSON.stringify({ stories: [{ id: 'A' }, { id: 'B', blockedBy: ['A', 'A'], dependsOn: ['A'] }] }, null, 2);
    const out = editStory(text, 'B', removeDependencyEdits(text, 'B', 'A'));
    assert.deepEqual(storyOf(out, 'B').dependencies, []);
    assert.deepEqual(JSON.parse(out).stories[1], { id: 'B', blockedBy: [], dependsOn: [] });
  });
});

describe('task graph edits: property', () => {
  type Op =
    | { kind: 'add'; story: number; blocker: number }
    | { kind: 'remove'; story: number; blocker: number }
    | { kind: 'field'; story: number; field: 'title' | 'description' | 'priority' | 'acceptanceCriteria'; value: string }
    | { kind: 'story'; title: string; blockers: number[] };
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('add' as const), story: fc.nat(20), blocker: fc.nat(20) }),
    fc.record({ kind: fc.constant('remove' as const), story: fc.nat(20), blocker: fc.nat(20) }),
    fc.record({
      kind: fc.constant('field' as const),
      story: fc.nat(20),
      field: fc.constantFrom('title' as const, 'description' as const, 'priority' as const, 'acceptanceCriteria' as const),
      value: fc.oneof(fc.string({ maxLength: 12 }), fc.integer({ min: -5, max: 50 }).map(String)),
    }),
    fc.record({ kind: fc.constant('story' as const), title: fc.string({ minLength: 1, maxLength: 10 }), blockers: fc.array(fc.nat(20), { maxLength: 2 }) }),
  );

  it('a random sequence of graph edits changes bytes only inside the edited story (or list) and keeps the file readable', () => {
    const applied = new Map<Op['kind'], number>();
    fc.assert(
      fc.property(fc.constantFrom(...SHAPES), fc.constantFrom<Key>('blockedBy', 'dependsOn', 'depends_on'), fc.array(opArb, { minLength: 1, maxLength: 8 }), (shape, key, ops) => {
        let text = shape.text(key);
        for (const op of ops) {
          const a = analyzePrd(text);
          const ids = a.doc.stories.map((s) => s.id);
          const pick = (n: number): string => ids[n % ids.length];
          let r: GraphEditResult;
          let span: { start: number; end: number };
          if (op.kind === 'story') {
            r = addStoryEdits(text, op.title, [...new Set(op.blockers.map(pick))]);
            const last = a.doc.stories.at(-1)!.range;
            span = { start: last.offset + last.length, end: spanAt(text, a.doc.stories[0].path.slice(0, -1)).end };
          } else {
            const s = a.doc.stories.find((x) => x.id === pick(op.story))!;
            span = { start: s.range.offset, end: s.range.offset + s.range.length };
            r =
              op.kind === 'add'
                ? addDependencyEdits(text, s.id, pick(op.blocker))
                : op.kind === 'remove'
                  ? removeDependencyEdits(text, s.id, pick(op.blocker))
                  : setStoryFieldEdits(text, s.id, op.field, op.value);
          }
          if (!r.ok) {
            continue;
          }
          const out = applyEdits(text, r.edits);
          assertOnlyInside(text, out, span);
          assertLayoutKept(text, out);
          const after = analyzePrd(out);
          if (op.kind === 'add') {
            assert.ok(after.doc.stories.find((x) => x.id === pick(op.story))?.dependencies.includes(pick(op.blocker)), 'the model reads the new dependency');
          } else if (op.kind === 'field' && op.field === 'title' && op.value.trim() !== '') {
            assert.equal(after.doc.stories.find((x) => x.id === pick(op.story))?.title, op.value, 'the model reads the new title');
          } else if (op.kind === 'story') {
            assert.equal(after.doc.stories.length, a.doc.stories.length + 1, 'the model reads the new story');
          }
          assert.equal(after.doc.shape.kind, shape.kind);
          assert.ok(after.doc.hasStories);
          assert.ok(after.problems.every((p) => p.code !== 'syntax'), 'still parseable');
          JSON.parse(out);
          applied.set(op.kind, (applied.get(op.kind) ?? 0) + 1);
          text = out;
        }
      }),
      { numRuns: 150 },
    );
    for (const kind of ['add', 'remove', 'field', 'story'] as const) {
      assert.ok((applied.get(kind) ?? 0) > 0, `no "${kind}" edit was ever applied: the property proved nothing about it`);
    }
  });
});
