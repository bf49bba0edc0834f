/**
 * What real users write (issue 9 items 1–4): dependency aliases, other root shapes, the split
 * between errors and warnings, and an empty story list.
 */
import assert from 'node:assert/strict';
import { applyEdits, fixEdits, type TextEdit } from '../../src/core/prd/edits';
import { addDependencyEdits, type GraphEditResult, removeDependencyEdits } from '../../src/core/prd/graphEdits';
import { analyze, cli, problemsOf } from './helpers';

const full = (id: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id,
  title: `T ${id}`,
  description: 'd',
  acceptanceCriteria: ['c'],
  priority: 1,
  passes: false,
  ...extra,
});

function prd(stories: unknown[], top: Record<string, unknown> = {}): string {
  return `${JSON.stringify({ ...top, userStories: stories }, null, 2)}\n`;
}

describe('dependency aliases (issue 9 item 1)', () => {
  for (const key of ['dependsOn', 'dependencies', 'depends_on']) {
    it(`reads "${key}" for readiness, validation and cycles`, () => {
      const a = analyze(prd([full('A'), full('B', { [key]: ['A'] }), full('C', { [key]: ['GHOST'] })]));
      assert.deepEqual(a.readiness.ready.map((s) => s.story.id), ['A']);
      assert.equal(a.doc.stories[1].dependencyKey, key);
      assert.deepEqual(a.doc.stories[1].dependencies, ['A']);
      const [unknown] = problemsOf(a, 'unknown-blocked-by');
      assert.ok(unknown, 'an unknown id under an alias is reported');
      const fix = unknown.fixes!.find((f) => f.kind === 'remove-blocked-by')!;
      const text = prd([full('A'), full('B', { [key]: ['A'] }), full('C', { [key]: ['GHOST'] })]);
      const fixed = JSON.parse(applyEdits(text, fixEdits(text, fix)));
      assert.deepEqual(fixed.userStories[2][key], [], 'the fix edits the key the story uses');
      assert.equal(fixed.userStories[2].blockedBy, undefined);
      const cyclic = analyze(prd([full('A', { [key]: ['B'] }), full('B', { [key]: ['A'] })]));
      assert.deepEqual(cyclic.cycles, [['A', 'B', 'A']]);
      assert.match(problemsOf(cyclic, 'cycle')[0].fixes![0].title, new RegExp(`from the ${key} of`));
    });
  }

  it('a story with blockedBy and an alias waits on both, with a warning', () => {
    const a = analyze(prd([full('A', { passes: true }), full('B'), full('C', { blockedBy: ['A'], dependsOn: ['B'] })]));
    const c = a.readiness.states[2];
    assert.deepEqual(c.waitingOn, ['B']);
    assert.equal(c.status, 'blocked');
    const [w] = problemsOf(a, 'dependency-keys');
    assert.equal(w.severity, 'warning');
    assert.match(w.message, /"blockedBy" and "dependsOn": it waits on all of them/);
    assert.equal(a.readable, true);
  });

  it('removing a dependency edits the array it is in; a new one uses the key the file already uses', () => {
    const edits = (r: GraphEditResult): TextEdit[] => (assert.ok(r.ok), r.ok ? r.edits : []);
    const text = prd([full('A'), full('B', { dependsOn: ['A'] }), full('C')]);
    assert.deepEqual(JSON.parse(applyEdits(text, edits(removeDependencyEdits(text, 'B', 'A')))).userStories[1].dependsOn, []);
    const added = JSON.parse(applyEdits(text, edits(addDependencyEdits(text, 'C', 'A'))));
    assert.deepEqual(added.userStories[2].dependsOn, ['A']);
    const plain = prd([full('A'), full('B')]);
    assert.deepEqual(JSON.parse(applyEdits(plain, edits(addDependencyEdits(plain, 'B', 'A')))).userStories[1].blockedBy, ['A']);
  });
});

describe('other root shapes (issue 9 item 2)', () => {
  const stories = [full('A'), full('B', { dependsOn: ['A'] })];
  for (const [name, text, found, kind] of [
    ['"stories"', JSON.stringify({ project: 'x', stories }, null, 2), '"stories" (2 entries)', 'other-key'],
    ['"tasks"', JSON.stringify({ tasks: stories }), '"tasks" (2 entries)', 'other-key'],
    ['"items"', JSON.stringify({ items: stories }), '"items" (2 entries)', 'other-key'],
    ['a {"prd": …} wrapper', JSON.stringify({ prd: { branchName: 'b', stories } }, null, 2), '"prd.stories" (2 entries)', 'wrapper'],
    ['a top-level array', JSON.stringify(stories, null, 2), 'a top-level array (2 entries)', 'array'],
  ] as const) {
    it(`${name}: shows the stories, says what was found, and converts the file`, () => {
      const a = analyze(text);
      assert.equal(a.doc.shape.kind, kind);
      assert.deepEqual(a.doc.stories.map((s) => s.id), ['A', 'B']);
      assert.equal(a.readiness.next?.story.id, 'A');
      assert.equal(a.readable, true);
      const [p] = problemsOf(a, 'shape');
      assert.equal(p.severity, 'warning');
      assert.ok(p.message.includes(`found ${found}: Ralph reads "userStories"`), p.message);
      const converted = applyEdits(text, fixEdits(text, p.fixes![0]));
      const after = analyze(converted);
      assert.equal(after.doc.shape.kind, 'standard', converted);
      assert.deepEqual(after.problems, []);
      assert.deepEqual(after.doc.stories.map((s) => s.id), ['A', 'B']);
      if (kind === 'wrapper') {
        assert.equal(after.doc.branchName, 'b');
      }
    });
  }

  it('phases with stories are read; phases without any are "no-stories", located', () => {
    const a = analyze(JSON.stringify({ phases: [{ name: 'one', stories: [full('A')] }, { name: 'two', tasks: [full('B', { dependsOn: ['A'] })] }] }));
    assert.equal(a.doc.shape.kind, 'phases');
    assert.deepEqual(a.doc.stories.map((s) => [s.id, s.path]), [['A', ['phases', 0, 'stories', 0]], ['B', ['phases', 1, 'tasks', 0]]]);
    const none = analyze('{\n  "phases": [{"name": "x"}]\n}');
    assert.deepEqual(none.problems.map((p) => [p.code, p.severity, p.range.start.line]), [['no-stories', 'error', 0]]);
    assert.equal(none.readable, false);
  });

  it('messages name the file the user has', () => {
    const r = cli(['validate', '--prd', 'tasks/prd-auth.json'], { 'tasks/prd-auth.json': JSON.stringify({ stories }) });
    assert.equal(r.code, 0, 'warnings only');
    assert.match(r.stdout, /prd-auth\.json: found "stories"/);
  });
});

describe('errors and warnings (issue 9 item 3)', () => {
  it('reads what a loop can work without, with warnings, and exits 0', () => {
    const text = JSON.stringify({
      userStories: [
        { title: 'no id', passes: false, priority: 'high', acceptance_criteria: ['x'] },
        { id: 7, title: 'numeric id', status: 'done' },
        { id: 'C', description: 'Only a description', priority: 'P0', status: 'open', dependsOn: [7] },
      ],
    }, null, 2);
    const a = analyze(text);
    assert.deepEqual(a.problems.filter((p) => p.severity === 'error'), []);
    assert.deepEqual(a.doc.stories.map((s) => [s.id, s.idDerived, s.passes, s.priority]), [['#1', true, false, 1], ['7', false, true, Number.POSITIVE_INFINITY], ['C', false, false, 0]]);
    assert.deepEqual(a.doc.stories[0].acceptanceCriteria, ['x']);
    assert.equal(a.doc.stories[2].title, 'Only a description');
    const codes = new Set(a.problems.map((p) => p.code));
    for (const code of ['missing-id', 'missing-field', 'field-synonym', 'priority', 'status']) {
      assert.ok(codes.has(code as never), `${code} in ${JSON.stringify([...codes])}`);
    }
    assert.equal(a.readiness.next?.story.id, 'C', 'C waits on 7, which passes; P0 runs before high');
    const r = cli(['validate', '--json'], { 'prd.json': text });
    assert.equal(r.code, 0);
    const out = JSON.parse(r.stdout) as { problems: { severity: string }[] };
    assert.ok(out.problems.length > 0 && out.problems.every((p) => p.severity === 'warning'));
  });

  it('the missing-id warning offers a quick fix that writes ids', () => {
    const text = JSON.stringify({ userStories: [{ title: 'a', passes: false }, { id: 'US-002', title: 'b', passes: false }, { title: 'c', passes: false }] }, null, 2);
    const [p] = problemsOf(analyze(text), 'missing-id');
    assert.match(p.message, /2 stories have no id/);
    const fixed = analyze(applyEdits(text, fixEdits(text, p.fixes![0])));
    assert.deepEqual(fixed.doc.stories.map((s) => s.id), ['US-001', 'US-002', 'US-003']);
    assert.deepEqual(problemsOf(fixed, 'missing-id'), []);
  });

  it('errors: passes not a boolean, an unusable priority, a dependency list that is not a list', () => {
    const a = analyze(JSON.stringify({ userStories: [full('A', { passes: 'yes' }), full('B', { priority: { p: 1 } }), full('C', { dependsOn: 'A' })] }));
    assert.deepEqual(a.problems.filter((p) => p.severity === 'error').map((p) => p.storyId), ['A', 'B', 'C']);
    assert.equal(a.readable, false);
    assert.equal(cli(['validate'], { 'prd.json': JSON.stringify({ userStories: [full('A', { passes: 'yes' })] }) }).code, 1);
  });
});
