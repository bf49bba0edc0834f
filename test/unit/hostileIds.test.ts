/**
 * Story ids that are also names on Object.prototype (`constructor`, `__proto__`, `toString`,
 * `hasOwnProperty`, `valueOf`) are ordinary ids everywhere: the model, validation, the schedule,
 * the task graph and its page message, the graph edits, the story's issues and the CLI
 * (issue 16 item 14).
 */
import assert from 'node:assert/strict';
import { issuesOfStory } from '../../src/core/artifacts/storyIssues';
import { applyEdits } from '../../src/core/prd/edits';
import { addDependencyEdits, removeDependencyEdits, setStoryFieldEdits, type GraphEditResult } from '../../src/core/prd/graphEdits';
import { analyzePrd, analyzePrdForReadiness, type PrdAnalysis } from '../../src/core/prd/index';
import { parseRuns } from '../../src/core/runs/runs';
import { graphJson, graphMermaid, graphText } from '../../src/core/taskGraph/format';
import { GraphMessageBuilder } from '../../src/core/taskGraph/message';
import { taskGraphOf } from '../../src/core/taskGraph/model';
import { outcomesOf, parseHostMessage } from '../../src/core/webview/graphProtocol';
import { runMessage } from '../../src/core/taskGraph/pageMessages';
import { cli, cliAsync, makePrd, type StoryInput } from './helpers';

const STORIES: StoryInput[] = [
  { id: 'constructor', priority: 1 },
  { id: '__proto__', priority: 2, blockedBy: ['constructor'] },
  { id: 'toString', priority: 3, passes: true, issue: 12 },
  { id: 'hasOwnProperty', priority: 4, blockedBy: ['toString', '__proto__'], notes: 'See GH-7' },
  { id: 'valueOf', priority: 0, blockedBy: ['toString'] },
];
const TEXT = makePrd(STORIES);
/** The same stories under "tasks": read through the parse tree (jsonc-parser), not the fast path. */
const TREE_TEXT = JSON.stringify({ tasks: JSON.parse(TEXT).userStories }, null, 2);

const EXPECTED_STATUS = [
  ['constructor', 'ready'],
  ['__proto__', 'blocked'],
  ['toString', 'done'],
  ['hasOwnProperty', 'blocked'],
  ['valueOf', 'ready'],
];

function statusById(a: PrdAnalysis): Map<string, string> {
  return new Map(a.readiness.states.map((s) => [s.story.id, s.status]));
}

function statusInFileOrder(a: PrdAnalysis): string[][] {
  return a.doc.stories.map((s) => [s.id, statusById(a).get(s.id) ?? 'missing']);
}

function apply(text: string, r: GraphEditResult): string {
  assert.ok(r.ok, r.ok ? '' : r.message);
  return applyEdits(text, r.ok ? r.edits : []);
}

function storyNamed(text: string, id: string): Record<string, unknown> {
  const list = JSON.parse(text).userStories as Record<string, unknown>[];
  const s = list.find((x) => Object.prototype.hasOwnProperty.call(x, 'id') && x.id === id);
  assert.ok(s, `no story ${id}`);
  return s;
}

describe('story ids named like Object.prototype members (issue 16 item 14)', () => {
  for (const [name, text] of [['fast path', TEXT], ['parse tree', TREE_TEXT]] as const) {
    it(`analyzePrd (${name}): no problem, the right state for each story, next and ready`, () => {
      for (const a of [analyzePrd(text), analyzePrdForReadiness(text)]) {
        assert.deepEqual(a.problems.filter((p) => p.severity === 'error'), []);
        assert.deepEqual(statusInFileOrder(a), EXPECTED_STATUS);
        assert.equal(a.readiness.next?.story.id, 'valueOf');
        assert.deepEqual(a.readiness.ready.map((s) => s.story.id), ['valueOf', 'constructor']);
        assert.deepEqual(a.readiness.blocked, [
          { id: '__proto__', waitingOn: ['constructor'] },
          { id: 'hasOwnProperty', waitingOn: ['__proto__'] },
        ]);
      }
    });
  }

  it('validation: an id that is not a story is unknown, a repeated one a duplicate, a cycle among them is found', () => {
    const unknown = analyzePrd(makePrd([{ id: 'A', blockedBy: ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'] }]));
    assert.deepEqual(
      unknown.problems.filter((p) => p.code === 'unknown-blocked-by').length,
      5,
      JSON.stringify(unknown.problems.map((p) => p.message)),
    );
    const dup = analyzePrd(makePrd([{ id: '__proto__' }, { id: '__proto__' }, { id: 'constructor' }, { id: 'constructor' }]));
    assert.equal(dup.problems.filter((p) => p.code === 'duplicate-id').length, 2, JSON.stringify(dup.problems.map((p) => p.message)));
    const cycle = analyzePrd(makePrd([{ id: 'constructor', blockedBy: ['__proto__'] }, { id: '__proto__', blockedBy: ['toString'] }, { id: 'toString', blockedBy: ['constructor'] }]));
    const c = cycle.problems.filter((p) => p.code === 'cycle');
    assert.equal(c.length, 1);
    assert.match(c[0].message, /constructor → toString → __proto__ → constructor/);
  });

  it('a story object with a "__proto__" key is read like any other unknown field, on both paths', () => {
    const text = '{"userStories": [{"id": "A", "title": "T", "priority": 1, "passes": false, "__proto__": {"passes": true, "id": "B"}, "description": "d", "acceptanceCriteria": ["c"]}]}';
    const tree = `{"tasks": ${text.slice('{"userStories": '.length, -1)}}`;
    for (const t of [text, tree]) {
      const a = analyzePrd(t);
      assert.deepEqual(a.problems.filter((p) => p.severity === 'error'), [], t);
      assert.deepEqual(a.doc.stories.map((s) => [s.id, s.passes]), [['A', false]]);
      assert.equal(a.readiness.next?.story.id, 'A');
    }
  });

  it('the schedule: waves, critical path and unblocks name every story', () => {
    const g = taskGraphOf(analyzePrd(TEXT));
    const json = graphJson(g);
    assert.deepEqual(json.waves, [['valueOf', 'constructor'], ['__proto__'], ['hasOwnProperty']]);
    assert.deepEqual(json.criticalPath, ['constructor', '__proto__', 'hasOwnProperty']);
    assert.deepEqual(Object.keys(json.unblocks).sort(), ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf']);
    assert.deepEqual(JSON.parse(JSON.stringify(json)).unblocks.__proto__, { direct: 1, total: 1 });
    assert.match(graphText(g), /Wave 1: valueOf, constructor/);
    assert.match(graphMermaid(g), /__proto__: Story __proto__/);
  });

  it('the task graph message: every node with its state and blockers, and the last outcome of each story', () => {
    const m = new GraphMessageBuilder().build(analyzePrd(TEXT), 'prd.json', 'LR');
    assert.deepEqual(
      m.nodes.map((n) => [n.id, n.state, n.blockedBy]),
      [
        ['constructor', 'ready', []],
        ['__proto__', 'blocked', ['constructor']],
        ['toString', 'done', []],
        ['hasOwnProperty', 'blocked', ['toString', '__proto__']],
        ['valueOf', 'next', ['toString']],
      ],
    );
    // What the page draws after the message crossed postMessage (a JSON-like clone) and zod.
    const runs = ['constructor', '__proto__', 'toString']
      .map((id, i) => JSON.stringify({ storyId: id, outcome: ['failed', 'no-progress', 'passed'][i], start: '2026-01-01T00:00:00Z', end: '2026-01-01T00:01:00Z' }))
      .join('\n');
    const posted = JSON.parse(JSON.stringify({ type: 'run', running: false, stories: [], lastOutcome: runMessage({ running: false }, new Map(parseRuns(runs).runs.map((r) => [r.storyId, r.outcome]))).lastOutcome })) as unknown;
    const parsed = parseHostMessage(posted);
    assert.ok(parsed.ok && parsed.message.type === 'run', parsed.ok ? '' : parsed.error);
    const outcomes = outcomesOf(parsed.message);
    assert.equal(outcomes.get('constructor'), 'failed');
    assert.equal(outcomes.get('__proto__'), 'no-progress');
    assert.equal(outcomes.get('toString'), 'passed');
    assert.equal(outcomes.get('hasOwnProperty'), undefined);
    assert.equal(outcomes.get('valueOf'), undefined);
  });

  it('graph edits: add and remove a dependency, refuse a cycle, rename a title', () => {
    const added = apply(TEXT, addDependencyEdits(TEXT, 'valueOf', 'constructor'));
    assert.deepEqual(storyNamed(added, 'valueOf').blockedBy, ['toString', 'constructor']);
    assert.equal(statusById(analyzePrd(added)).get('valueOf'), 'blocked');
    const removed = apply(added, removeDependencyEdits(added, 'hasOwnProperty', '__proto__'));
    assert.deepEqual(storyNamed(removed, 'hasOwnProperty').blockedBy, ['toString']);
    const refused = addDependencyEdits(TEXT, 'constructor', 'hasOwnProperty');
    assert.equal(refused.ok, false);
    assert.deepEqual(refused.ok ? [] : refused.cycle, ['constructor', '__proto__', 'hasOwnProperty', 'constructor']);
    const renamed = apply(TEXT, setStoryFieldEdits(TEXT, '__proto__', 'title', 'Renamed'));
    assert.equal(storyNamed(renamed, '__proto__').title, 'Renamed');
    assert.equal(storyNamed(renamed, 'constructor').title, 'Story constructor');
    const unknown = addDependencyEdits(TEXT, 'valueOf', 'propertyIsEnumerable');
    assert.equal(unknown.ok, false);
  });

  it("a story's issues: the issue field and mentions, read at the story's path", () => {
    const a = analyzePrd(TEXT);
    assert.deepEqual(a.doc.stories.map((s) => s.issue), [undefined, undefined, 12, undefined, undefined]);
    const issues = a.doc.stories.map((s) => issuesOfStory(s));
    assert.deepEqual(issues, [[], [], [12], [7], []]);
  });

  it('a story\'s issue field is its own: not one inside a "__proto__" key', () => {
    const text = '{"userStories": [{"id": "A", "title": "T", "priority": 1, "passes": false, "description": "d", "acceptanceCriteria": ["c"], "__proto__": {"issue": 42}}, {"id": "B", "issue": 7, "__proto__": {"issue": 42}}]}';
    assert.deepEqual(analyzePrd(text).doc.stories.map((s) => s.issue), [undefined, 7], 'the fast path (JSON.parse)');
    // A comment sends the file down the parse-tree path: the same rule there.
    const viaTree = analyzePrd(text.replace('{"id": "B"', '/* c */ {"id": "B"'));
    assert.ok(viaTree.problems.some((p) => p.code === 'syntax'));
    assert.deepEqual(viaTree.doc.stories.map((s) => s.issue), [undefined, 7], 'the parse-tree path');
  });

  describe('the CLI', () => {
    const files = { 'prd.json': TEXT };

    it('next, ready and validate', () => {
      assert.deepEqual(JSON.parse(cli(['next', '--json'], files).stdout), {
        state: 'ready',
        next: { id: 'valueOf', title: 'Story valueOf', priority: 0 },
        blocked: [
          { id: '__proto__', waitingOn: ['constructor'] },
          { id: 'hasOwnProperty', waitingOn: ['__proto__'] },
        ],
      });
      assert.match(cli(['next'], files).stdout, /^valueOf - Story valueOf/);
      assert.deepEqual(
        (JSON.parse(cli(['ready', '--json'], files).stdout) as { ready: { id: string }[] }).ready.map((s) => s.id),
        ['valueOf', 'constructor'],
      );
      assert.match(cli(['ready'], files).stdout, /valueOf - Story valueOf.*\nconstructor - Story constructor/);
      const v = cli(['validate'], files);
      assert.equal(v.code, 0, v.stdout);
      assert.match(v.stdout, /valid \(5 stories, 1 passing\)/);
    });

    it('graph in all three formats', () => {
      const json = JSON.parse(cli(['graph', '--format', 'json'], files).stdout) as { waves: string[][]; unblocks: Record<string, unknown> };
      assert.deepEqual(json.waves, [['valueOf', 'constructor'], ['__proto__'], ['hasOwnProperty']]);
      assert.ok(Object.prototype.hasOwnProperty.call(json.unblocks, '__proto__'));
      assert.match(cli(['graph'], files).stdout, /Wave 2: __proto__/);
      assert.match(cli(['graph', '--format', 'mermaid'], files).stdout, /hasOwnProperty: Story hasOwnProperty/);
    });

    for (const id of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      it(`context ${id}`, async () => {
        // Two of these stories name an issue: --offline reads their plans from disk only.
        const r = await cliAsync(['context', id, '--offline'], files);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, new RegExp(`^# Ralph iteration: ${id} — Story ${id}`));
        assert.doesNotMatch(r.stdout, /function Object|\[native code\]|\[object Object\]/);
      });
    }
  });
});
