/** Issue 22: re-import into an existing prd.json (a minimal edit), and the bad inputs of an import. */
import assert from 'node:assert/strict';
import { importFiles, ImportError, mergeIntoPrd } from '../../src/core/import/index';
import { analyzePrd } from '../../src/core/prd/index';

const META = { projectName: 'demo', sourceLabel: '.taskmaster/tasks/tasks.json' };

function taskmaster(tasks: Record<string, unknown>[]): { file: string; text: string } {
  return { file: '.taskmaster/tasks/tasks.json', text: JSON.stringify({ master: { tasks } }, null, 2) };
}

const TASKS = [
  { id: 1, title: 'Schema', status: 'done', priority: 'high', dependencies: [] },
  { id: 2, title: 'API', status: 'pending', priority: 'medium', dependencies: [1] },
];

describe('import: re-import into an existing prd.json', () => {
  it('updates the stories it created, appends new ones, and leaves every other byte alone', () => {
    const first = mergeIntoPrd(undefined, importFiles([taskmaster(TASKS)]), META).text;
    // The user adds a story of their own, a note on an imported story and an unknown field.
    const manual = '{"id": "US-900", "title": "Mine", "priority": 5, "passes": false, "description": "", "acceptanceCriteria": [], "custom": {"keep": true}}';
    const edited = first
      .replace('"userStories": [', `"x-team": "blue",\n  "userStories": [\n    ${manual},`)
      .replace('"title": "API",', '"title": "API",\n      "notes": "talk to Ana",');
    assert.doesNotThrow(() => JSON.parse(edited));
    const changed = [{ ...TASKS[0] }, { ...TASKS[1], status: 'done', title: 'REST API' }, { id: 3, title: 'UI', dependencies: [2] }];
    const { text, summary } = mergeIntoPrd(edited, importFiles([taskmaster(changed)]), META);
    const prd = JSON.parse(text) as { 'x-team': string; userStories: Record<string, unknown>[] };
    assert.equal(prd['x-team'], 'blue');
    assert.deepEqual(prd.userStories.map((s) => s.id), ['US-900', 'TM-1', 'TM-2', 'TM-3']);
    const api = prd.userStories[2];
    assert.deepEqual([api.title, api.passes, api.notes], ['REST API', true, 'talk to Ana']);
    assert.ok(text.includes(manual), 'the story the user wrote is byte for byte the same');
    assert.deepEqual({ added: summary.added, updated: summary.updated, unchanged: summary.unchanged, kept: summary.kept }, { added: 1, updated: 1, unchanged: 1, kept: 1 });
    // Only the changed values differ: removing them from both texts leaves the same text.
    const strip = (t: string) => t.replace(/"(API|REST API)"/, '').replace(/"passes": (true|false)/g, '').replace(/,\s*\{\s*"id": "TM-3"[\s\S]*?\}\s*\}(?=\s*\])/, '');
    assert.equal(strip(text), strip(edited));
  });

  it('a second import of the same source changes nothing', () => {
    const result = importFiles([taskmaster(TASKS)]);
    const first = mergeIntoPrd(undefined, result, META).text;
    const again = mergeIntoPrd(first, importFiles([taskmaster(TASKS)]), META);
    assert.equal(again.text, first);
    assert.deepEqual([again.summary.added, again.summary.updated, again.summary.unchanged], [0, 0, 2]);
  });

  it('a story the loop finished stays passing when the source still calls it pending (an import never takes work back)', () => {
    const first = mergeIntoPrd(undefined, importFiles([taskmaster(TASKS)]), META).text;
    const done = first.replace('"passes": false', '"passes": true');
    const again = mergeIntoPrd(done, importFiles([taskmaster(TASKS)]), META);
    assert.equal(again.text, done, 'nothing written');
    assert.equal(again.summary.updated, 0);
    // The source may still mark a story done: that is taken.
    const marked = mergeIntoPrd(first, importFiles([taskmaster([TASKS[0], { ...TASKS[1], status: 'done' }])]), META);
    assert.equal((JSON.parse(marked.text) as { userStories: { passes: boolean }[] }).userStories[1].passes, true);
  });

  it('keeps a story the source no longer has, and says so', () => {
    const first = mergeIntoPrd(undefined, importFiles([taskmaster(TASKS)]), META).text;
    const { text, summary } = mergeIntoPrd(first, importFiles([taskmaster([TASKS[0]])]), META);
    assert.deepEqual((JSON.parse(text) as { userStories: { id: string }[] }).userStories.map((s) => s.id), ['TM-1', 'TM-2']);
    assert.deepEqual(summary.gone, ['TM-2']);
  });

  it('a prd.json that is not JSON is refused, with what to do', () => {
    assert.throws(() => mergeIntoPrd('{"userStories": [', importFiles([taskmaster(TASKS)]), META), (e: unknown) => e instanceof ImportError && /not valid JSON: fix it first/.test(e.message));
  });

  it('an id already used by a story the import did not create is kept twice and reported (the validator says where)', () => {
    const existing = JSON.stringify({ userStories: [{ id: 'TM-1', title: 'hand-made', priority: 1, passes: false, description: '', acceptanceCriteria: [] }] }, null, 2);
    const { text, summary } = mergeIntoPrd(existing, importFiles([taskmaster(TASKS)]), META);
    assert.match(summary.warnings[0].message, /TM-1 is also the id of a story that was not imported/);
    assert.ok(analyzePrd(text).problems.some((p) => p.code === 'duplicate-id'));
  });
});

describe('import: bad input', () => {
  it('a malformed tasks.json says where it breaks', () => {
    assert.throws(() => importFiles([{ file: 'tasks.json', text: '{\n  "master": {\n    "tasks": [\n      {"id": 1,, "title": "x"}\n' }], { format: 'taskmaster' }), (e: unknown) => e instanceof ImportError && /tasks\.json is not valid JSON \(\w+ at line 4\)/.test(e.message));
  });

  it('an unknown format names the known ones', () => {
    assert.throws(() => importFiles([{ file: 'notes.txt', text: 'hello' }]), (e: unknown) => e instanceof ImportError && /Known formats:/.test(e.message));
  });

  it('a dependency naming nothing is kept and the validator reports it', () => {
    const text = mergeIntoPrd(undefined, importFiles([taskmaster([{ id: 1, title: 'A', dependencies: [42] }])]), META).text;
    assert.deepEqual((JSON.parse(text) as { userStories: { blockedBy: string[] }[] }).userStories[0].blockedBy, ['TM-42']);
    assert.ok(analyzePrd(text).problems.some((p) => p.code === 'unknown-blocked-by' && p.message.includes('TM-42')));
  });

  it('a cycle is imported and the validator reports it with its path', () => {
    const text = mergeIntoPrd(undefined, importFiles([taskmaster([{ id: 1, title: 'A', dependencies: [2] }, { id: 2, title: 'B', dependencies: [1] }])]), META).text;
    const cycle = analyzePrd(text).problems.find((p) => p.code === 'cycle');
    assert.ok(cycle);
    assert.match(cycle.message, /TM-1 → TM-2 → TM-1|TM-2 → TM-1 → TM-2/);
  });

  it('ids with control characters or spaces around them become valid ids, the original kept in source', () => {
    const r = importFiles([{ file: 'i.jsonl', text: `${JSON.stringify({ id: ' bd-\u001b7 ', title: 'x', dependencies: [{ depends_on_id: ' bd-\u001b7 ', type: 'blocks' }] })}\n` }]);
    assert.equal(r.stories[0].id, 'bd- 7');
    assert.equal(r.stories[0].source.id, 'bd-\u001b7');
    assert.deepEqual(r.stories[0].blockedBy, ['bd- 7']);
  });

  it('huge files: 100,000 beads issues and 100,000 Taskmaster tasks import (one pass, Map look-ups)', () => {
    const n = 100_000;
    const lines: string[] = [];
    const tasks: Record<string, unknown>[] = [];
    for (let i = 0; i < n; i++) {
      const deps = i > 0 ? [{ issue_id: `bd-${i}`, depends_on_id: `bd-${i - 1}`, type: 'blocks' }, { issue_id: `bd-${i}`, depends_on_id: 'bd-0', type: 'parent-child' }] : [];
      lines.push(JSON.stringify({ id: `bd-${i}`, title: `Issue ${i}`, status: i % 3 === 0 ? 'closed' : 'open', priority: i % 5, dependencies: deps }));
      tasks.push({ id: i + 1, title: `Task ${i}`, status: 'pending', dependencies: i > 0 ? [i] : [] });
    }
    const beads = importFiles([{ file: '.beads/issues.jsonl', text: lines.join('\n') }]);
    assert.equal(beads.stories.length, n);
    assert.equal(beads.stories[0].blockedBy?.length, n - 1);
    const tm = importFiles([taskmaster(tasks)]);
    assert.equal(tm.stories.length, n);
    const merged = mergeIntoPrd(mergeIntoPrd(undefined, tm, META).text, tm, META);
    assert.equal(merged.summary.unchanged, n);
  });
});

describe('prd.json priority words (the reader the importers share)', () => {
  it('a priority that names an Object property ("constructor") is an error, not a function for a priority', () => {
    const a = analyzePrd(JSON.stringify({ userStories: [{ id: 'A', title: 'a', priority: 'constructor', passes: false, description: '', acceptanceCriteria: [] }] }));
    assert.ok(a.problems.some((p) => p.code === 'schema' && /priority: expected a number/.test(p.message)), JSON.stringify(a.problems.map((p) => p.message)));
  });
});
