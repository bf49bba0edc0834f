import assert from 'node:assert/strict';
import { applyEdits, fixEdits, removeBlockedByEdits } from '../../src/core/prd/edits';
import type { RemoveDependencyFix } from '../../src/core/prd/problems';
import { analyze, columnOf, lineOf, makePrd, problemsOf, where } from './helpers';

describe('validating prd.json', () => {
  it('finds no problems in a valid file with dependencies', () => {
    const a = analyze(makePrd([{ id: 'A' }, { id: 'B', blockedBy: ['A'] }, { id: 'C', blockedBy: ['A', 'B'] }]));
    assert.deepEqual(a.problems, []);
    assert.deepEqual(a.cycles, []);
    assert.equal(a.readable, true);
  });

  describe('duplicate ids', () => {
    it('reports every later occurrence at its id, naming the line of the first', () => {
      const text = makePrd([{ id: 'US-001' }, { id: 'US-002' }, { id: 'US-001' }, { id: 'US-001' }]);
      const a = analyze(text);
      const dups = problemsOf(a, 'duplicate-id');
      assert.equal(dups.length, 2);
      const firstLine = lineOf(text, '"US-001"');
      for (const [k, p] of dups.entries()) {
        assert.deepEqual(where(p), { line: lineOf(text, '"US-001"', k + 1), column: columnOf(text, '"US-001"', k + 1) });
        assert.match(p.message, new RegExp(`Duplicate story id "US-001": it is already used by the story at line ${firstLine}\\.`));
        assert.equal(p.storyId, 'US-001');
        assert.equal(p.storyIndex, k + 2);
      }
      assert.equal(a.problems.length, 2);
      // Duplicates make the file unreadable for the CLI: which US-001 would "passes" refer to?
      assert.equal(a.readable, false);
    });
  });

  describe('unknown blockedBy ids', () => {
    it('reports the element with a quick fix that removes it', () => {
      const text = makePrd([{ id: 'US-001' }, { id: 'US-002', blockedBy: ['US-001', 'US-999'] }]);
      const a = analyze(text);
      assert.equal(a.problems.length, 1);
      const [p] = a.problems;
      assert.equal(p.code, 'unknown-blocked-by');
      assert.equal(p.storyId, 'US-002');
      assert.match(p.message, /Story "US-002" is blocked by "US-999", which is not a story in prd\.json\./);
      assert.deepEqual(where(p), { line: lineOf(text, '"US-999"'), column: columnOf(text, '"US-999"') });
      assert.deepEqual(p.fixes, [
        {
          kind: 'remove-blocked-by',
          title: 'Remove "US-999" from the blockedBy of "US-002"',
          storyIndex: 1,
          storyPath: ['userStories', 1],
          key: 'blockedBy',
          blockedId: 'US-999',
          elementIndex: 1,
        },
      ]);
      // Graph problems leave the file readable.
      assert.equal(a.readable, true);

      const fix = p.fixes![0];
      const fixed = applyEdits(text, fixEdits(text, fix));
      const after = analyze(fixed);
      assert.deepEqual(after.problems, []);
      assert.deepEqual(JSON.parse(fixed).userStories[1].blockedBy, ['US-001']);
    });

    it('suggests the id that differs only by case or zero padding, and offers "Change to" it first (issue 7 §1.6)', () => {
      const text = makePrd([{ id: 'US-001' }, { id: 'US-002', blockedBy: ['us-01'] }]);
      const a = analyze(text);
      assert.match(a.problems[0].message, /\(did you mean "US-001"\?\)/);
      const fixes = a.problems[0].fixes!;
      assert.deepEqual(fixes.map((f) => [f.kind, f.title]), [
        ['replace-blocked-by', 'Change to "US-001"'],
        ['remove-blocked-by', 'Remove "us-01" from the blockedBy of "US-002"'],
      ]);
      const fixed = applyEdits(text, fixEdits(text, fixes[0]));
      assert.deepEqual(JSON.parse(fixed).userStories[1].blockedBy, ['US-001']);
      assert.deepEqual(analyze(fixed).problems, []);
    });

    it('names a story without an id by its position', () => {
      const text = makePrd([{ id: '', blockedBy: ['X'] }]);
      const p = problemsOf(analyze(text), 'unknown-blocked-by')[0];
      assert.match(p.message, /Story "#1" is blocked by "X"/);
      assert.equal(p.storyId, '#1');
    });
  });

  describe('self-dependencies', () => {
    it('reports a story blocked by itself at the element, with a quick fix', () => {
      const text = makePrd([{ id: 'A', blockedBy: ['A'] }, { id: 'B' }]);
      const a = analyze(text);
      assert.deepEqual(
        a.problems.map((p) => p.code),
        ['self-dependency'],
      );
      const [p] = a.problems;
      assert.match(p.message, /Story "A" is blocked by itself/);
      assert.deepEqual(where(p), { line: lineOf(text, '"A"', 1), column: columnOf(text, '"A"', 1) });
      assert.equal(p.fixes?.[0].kind === 'remove-blocked-by' && p.fixes[0].elementIndex, 0);
      assert.deepEqual(a.cycles, [], 'a self-loop is not reported as a cycle');
    });
  });

  describe('cycles', () => {
    // Cycles read in run order: in "A → B → A", B waits on A and A waits on B.
    it('reports a 2-cycle once, with the full path and both blockedBy elements as its edges', () => {
      const text = makePrd([{ id: 'A', blockedBy: ['B'] }, { id: 'B', blockedBy: ['A'] }]);
      const a = analyze(text);
      const cycles = problemsOf(a, 'cycle');
      assert.equal(cycles.length, 1);
      assert.deepEqual(a.cycles, [['A', 'B', 'A']]);
      const [p] = cycles;
      assert.match(p.message, /^Dependency cycle: A → B → A \(each story waits on the one before it\)\. None of them can become ready\.$/);
      assert.deepEqual(p.cycle, ['A', 'B', 'A']);
      assert.deepEqual([p.storyId, where(p).line], ['A', lineOf(text, '"B"', 0)]);
      assert.deepEqual(
        p.edges!.map((e) => [e.storyId, e.waitsOn, e.range.start.line + 1]).sort(),
        [
          ['A', 'B', lineOf(text, '"B"', 0)],
          ['B', 'A', lineOf(text, '"A"', 1)],
        ],
      );
      assert.equal(a.readable, true);
    });

    it('reports a 3-story cycle as "A → B → C → A" with each edge at its element', () => {
      // B waits on A, C on B, A on C. Extra, unrelated entries must not confuse the positions.
      const text = makePrd([
        { id: 'X', passes: true },
        { id: 'A', blockedBy: ['X', 'C'] },
        { id: 'B', blockedBy: ['A'] },
        { id: 'C', blockedBy: ['X', 'B'] },
      ]);
      const a = analyze(text);
      const cycles = problemsOf(a, 'cycle');
      assert.deepEqual(a.cycles, [['A', 'B', 'C', 'A']]);
      assert.equal(a.problems.length, 1);
      assert.ok(cycles.every((p) => p.message.startsWith('Dependency cycle: A → B → C → A ')));
      // A's entry "C", B's entry "A", C's entry "B": each edge at its own blockedBy element.
      assert.deepEqual(
        cycles[0].edges!.map((e) => [e.storyId, { line: e.range.start.line + 1, column: e.range.start.character + 1 }]).sort(),
        [
          ['A', { line: lineOf(text, '"C"', 0), column: columnOf(text, '"C"', 0) }],
          ['B', { line: lineOf(text, '"A"', 1), column: columnOf(text, '"A"', 1) }],
          ['C', { line: lineOf(text, '"B"', 1), column: columnOf(text, '"B"', 1) }],
        ],
      );
      // Each problem offers to break the cycle at any of its edges, and each fix does break it.
      const fixes = cycles[0].fixes!.map((f) => f as RemoveDependencyFix);
      assert.deepEqual(
        fixes.map((f) => `${f.storyIndex}:${f.blockedId}:${f.elementIndex}`).sort(),
        ['1:C:1', '2:A:0', '3:B:1'],
      );
      for (const f of fixes) {
        assert.match(f.title, new RegExp(`^Break the cycle: remove "${f.blockedId}" from the blockedBy of "[ABC]"$`));
        const fixed = applyEdits(text, removeBlockedByEdits(text, f.storyIndex, f.elementIndex));
        assert.deepEqual(analyze(fixed).problems, [], `after removing ${f.blockedId} from story ${f.storyIndex}`);
      }
    });

    it('reports two independent cycles separately', () => {
      const a = analyze(
        makePrd([
          { id: 'A', blockedBy: ['B'] },
          { id: 'B', blockedBy: ['A'] },
          { id: 'C', blockedBy: ['E'] },
          { id: 'D', blockedBy: ['C'] },
          { id: 'E', blockedBy: ['D'] },
          { id: 'F' },
        ]),
      );
      assert.deepEqual(a.cycles, [
        ['A', 'B', 'A'],
        ['C', 'D', 'E', 'C'],
      ]);
      assert.equal(problemsOf(a, 'cycle').length, 2);
      assert.ok(problemsOf(a, 'cycle').every((p) => !p.message.includes('tangled')));
      assert.equal(a.readiness.next?.story.id, 'F');
    });

    it('covers every member of a strongly connected component bigger than one simple cycle', () => {
      // A waits on B and C; B and D wait on A; C waits on D: cycles A→B→A and A→C→D→A share A.
      const text = makePrd([
        { id: 'A', blockedBy: ['B', 'C'] },
        { id: 'B', blockedBy: ['A'] },
        { id: 'C', blockedBy: ['D'] },
        { id: 'D', blockedBy: ['A'] },
        { id: 'E', blockedBy: ['D'] },
      ]);
      const a = analyze(text);
      const covered = new Set(a.cycles.flat());
      assert.deepEqual([...covered].sort(), ['A', 'B', 'C', 'D']);
      for (const c of a.cycles) {
        assert.equal(c[0], c[c.length - 1]);
      }
      const cycles = problemsOf(a, 'cycle');
      assert.ok(cycles.every((p) => /4 stories are tangled/.test(p.message)));
      // Every blockedBy element that is an edge of a reported cycle is listed once.
      const edges = cycles.flatMap((p) => p.edges!);
      assert.equal(new Set(edges.map((e) => e.range.offset)).size, edges.length);
      assert.ok(!edges.some((e) => e.storyId === 'E'), 'E waits on the cycle but is not part of it');
    });

    it('sorts all problems by their place in the file', () => {
      const a = analyze(
        makePrd([{ id: 'A', blockedBy: ['B', 'Q'] }, { id: 'B', blockedBy: ['A', 'B'] }, { id: 'A' }]),
      );
      const offsets = a.problems.map((p) => p.range.offset);
      assert.deepEqual(offsets, [...offsets].sort((x, y) => x - y));
      assert.deepEqual(
        a.problems.map((p) => p.code),
        ['cycle', 'unknown-blocked-by', 'self-dependency', 'duplicate-id'],
      );
    });
  });
});
