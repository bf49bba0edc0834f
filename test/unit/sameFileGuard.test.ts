/**
 * The same-file guard of the parallel loop (issue 19): which files a story is predicted to touch
 * (its `files` hints, the Pin modules its words name, the files its earlier attempts changed in
 * progress.txt), when two predictions overlap, and the one sentence that says why a story waits.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { normaliseFilePath, pinModulesFor, predictAll, predictFiles, sharedFiles } from '../../src/core/loop/sameFile';
import { describeWait } from '../../src/core/loop/waitReasons';
import { prdJsonSchema } from '../../src/core/prd/jsonSchema';
import { parsePin } from '../../src/core/pin/format';
import { filesChangedByStory, parseProgress } from '../../src/core/progress/parse';
import { analyze, makePrd } from './helpers';

const PIN = `# Demo — The Pin

## Task API
REST endpoints for tasks.
Keywords: tasks, REST endpoint, express
Files: src/api/tasks.ts, src/api/router.ts

## Filter bar
Keywords: filter, search box
Files: src/ui/filterBar.tsx

## Priority model
Keywords: priority levels
Files: src/model/
`;

const PROGRESS = `# Ralph Progress Log
---

## 2026-01-10 10:00 - US-002
- Tried the filter
- Files changed: src/ui/filterBar.tsx, \`src/ui/filter.css\`, prd.json, progress.txt, src/ui/AGENTS.md
**Learnings for future iterations:**
  - none
---

## 2026-01-10 11:00 - US-002
- Second try
- Files changed: src/ui/filterBar.tsx, src/ui/search.ts
---
`;

describe('prd.json: a story may name the files it will change ("files")', () => {
  it('reads the files hints of a story as written', () => {
    const a = analyze(makePrd([{ id: 'US-001', files: ['src/api/tasks.ts', './src/x.ts'] }, { id: 'US-002' }]));
    assert.deepEqual(a.doc.stories[0].files, ['src/api/tasks.ts', './src/x.ts']);
    assert.equal(a.doc.stories[1].files, undefined);
    assert.deepEqual(a.problems, []);
  });

  it('a "files" that is not a list of paths is a warning at its place, and the story still runs', () => {
    const text = makePrd([{ id: 'US-001', files: 'src/a.ts' }, { id: 'US-002', files: ['src/b.ts', 3, ''] }]);
    const a = analyze(text);
    assert.equal(a.readable, true);
    assert.equal(a.doc.stories[0].files, undefined);
    assert.deepEqual(a.doc.stories[1].files, ['src/b.ts']);
    const messages = a.problems.map((p) => `${p.severity} ${p.range.start.line + 1}: ${p.message}`);
    assert.deepEqual(messages, [
      `warning ${text.split('\n').findIndex((l) => l.includes('"files": "src/a.ts"')) + 1}: userStories[0].files: expected a list of file paths, got a string ("src/a.ts"); ignored.`,
      `warning ${text.split('\n').findIndex((l) => l.includes('"files": [')) + 1}: userStories[1].files: 2 entries that are not file paths ignored.`,
    ]);
  });

  it('the JSON schema VS Code shows documents "files" as an optional list of strings', () => {
    const story = ((prdJsonSchema().properties as Record<string, Record<string, unknown>>).userStories.items ?? {}) as Record<string, unknown>;
    const files = (story.properties as Record<string, Record<string, unknown>>).files;
    assert.equal(files.type, 'array');
    assert.deepEqual(files.items, { type: 'string' });
    assert.match(String(files.description), /same-file guard|at once/);
    assert.ok(!(story.required as string[]).includes('files'));
  });
});

describe('progress.txt: the files each story changed (filesChangedByStory)', () => {
  it('collects the "Files changed" of every entry of a story, in order, once each', () => {
    const files = filesChangedByStory(parseProgress(PROGRESS));
    assert.deepEqual(files.get('US-002'), ['src/ui/filterBar.tsx', 'src/ui/filter.css', 'prd.json', 'progress.txt', 'src/ui/AGENTS.md', 'src/ui/search.ts']);
    assert.equal(files.get('US-001'), undefined);
  });
});

describe('the Pin modules a story names (pinModulesFor)', () => {
  const pin = parsePin(PIN);
  const names = (words: string): string[] => pinModulesFor(pin, words).map((m) => m.name);

  it('a module matches when the story has every word of one of its keywords (plurals folded)', () => {
    assert.deepEqual(names('Add a task endpoint'), ['Task API']); // "tasks" ← task
    assert.deepEqual(names('Expose the REST endpoint for exports'), ['Task API']); // a two-word keyword, both words present
    assert.deepEqual(names('Show the search box'), ['Filter bar']);
  });

  it('or every word of its name', () => {
    assert.deepEqual(names('Task API pagination'), ['Task API']);
    assert.deepEqual(names('A model of the priority'), ['Priority model']);
  });

  it('part of a keyword, part of a name, or a word of a file path is not a match', () => {
    assert.deepEqual(names('REST of the day'), []); // "REST endpoint": one word of two
    assert.deepEqual(names('The API docs'), []); // "Task API": one word of two
    assert.deepEqual(names('Move the router'), []); // only in src/api/router.ts
    assert.deepEqual(names('Search results page'), []); // "search box": one word of two
  });
});

describe('predictFiles: what a story is predicted to touch', () => {
  const pin = parsePin(PIN);
  const progressFiles = filesChangedByStory(parseProgress(PROGRESS));

  it('takes its hints, the files of the Pin modules it names and the files its earlier attempts changed, each once', () => {
    const story = { id: 'US-002', title: 'Filter tasks', description: 'A filter for the list.', files: ['./src/ui/filterBar.tsx', 'src\\ui\\list.tsx'] };
    assert.deepEqual(predictFiles(story, { pin, progressFiles }), [
      { path: 'src/ui/filterBar.tsx', source: 'hint' },
      { path: 'src/ui/list.tsx', source: 'hint' },
      { path: 'src/api/tasks.ts', source: 'pin', module: 'Task API' },
      { path: 'src/api/router.ts', source: 'pin', module: 'Task API' },
      { path: 'src/ui/filter.css', source: 'progress' },
      { path: 'src/ui/search.ts', source: 'progress' },
    ]);
  });

  it('never counts the memory files every iteration writes (prd.json, progress.txt, AGENTS.md, .ralph/)', () => {
    const story = { id: 'US-002', title: 'x', description: '', files: ['prd.json', 'docs/AGENTS.md', '.ralph/prompt.md', 'scripts/ralph/prd.json'] };
    const predicted = predictFiles(story, { progressFiles, memoryFiles: ['scripts/ralph/prd.json', 'progress.txt'] }).map((f) => f.path);
    assert.deepEqual(predicted, ['prd.json', 'src/ui/filterBar.tsx', 'src/ui/filter.css', 'src/ui/search.ts']);
  });

  it('predictAll gives the paths of every unfinished story, for the parallel loop', () => {
    const a = analyze(makePrd([{ id: 'US-001', title: 'Task list', files: ['src/list.ts'] }, { id: 'US-002', title: 'Done', passes: true, files: ['src/x.ts'] }, { id: 'US-003', title: 'Changelog' }]));
    assert.deepEqual([...predictAll(a.doc.stories, { pin })], [
      ['US-001', ['src/list.ts', 'src/api/tasks.ts', 'src/api/router.ts']],
      ['US-003', []],
    ]);
  });

  it('a story with no hints, no matching module and no earlier attempt is predicted to touch nothing', () => {
    assert.deepEqual(predictFiles({ id: 'US-009', title: 'Write the changelog', description: '' }, { pin, progressFiles }), []);
  });
});

describe('sharedFiles: when two predictions overlap', () => {
  it('the same file, or a file inside a folder the other names (the file is reported)', () => {
    assert.deepEqual(sharedFiles(['src/api/tasks.ts', 'src/a.ts'], ['src/b.ts', 'src/api/tasks.ts']), ['src/api/tasks.ts']);
    assert.deepEqual(sharedFiles(['src/model'], ['src/model/priority.ts']), ['src/model/priority.ts']);
    assert.deepEqual(sharedFiles(['src/model/priority.ts'], ['src/model']), ['src/model/priority.ts']);
  });

  it('a common prefix that is not a folder is not an overlap', () => {
    assert.deepEqual(sharedFiles(['src/model.ts'], ['src/model']), []);
    assert.deepEqual(sharedFiles(['src/api/tasks.ts'], ['src/api/tasks.tsx']), []);
    assert.deepEqual(sharedFiles([], ['src/a.ts']), []);
  });

  it('is symmetric and agrees with a brute-force check on random paths', () => {
    const seg = fc.constantFrom('src', 'api', 'a.ts', 'b.ts', 'ui');
    const path = fc.array(seg, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));
    fc.assert(
      fc.property(fc.array(path, { maxLength: 4 }), fc.array(path, { maxLength: 4 }), (a, b) => {
        const within = (x: string, y: string) => x === y || y.startsWith(`${x}/`) || x.startsWith(`${y}/`);
        const expected = a.some((x) => b.some((y) => within(x, y)));
        assert.equal(sharedFiles(a, b).length > 0, expected);
        assert.deepEqual([...sharedFiles(a, b)].sort(), [...sharedFiles(b, a)].sort());
      }),
      { numRuns: 300 },
    );
  });
});

describe('normaliseFilePath', () => {
  it('writes every path one way, and turns a glob into the folder it starts in', () => {
    assert.equal(normaliseFilePath(' ./src//api/tasks.ts '), 'src/api/tasks.ts');
    assert.equal(normaliseFilePath('src\\ui\\list.tsx'), 'src/ui/list.tsx');
    assert.equal(normaliseFilePath('src/model/'), 'src/model');
    assert.equal(normaliseFilePath('src/api/*.ts'), 'src/api');
    assert.equal(normaliseFilePath('**/*.ts'), undefined);
    assert.equal(normaliseFilePath('  '), undefined);
    assert.equal(normaliseFilePath('/'), undefined);
  });
});

describe('describeWait: the one sentence for why a ready story waits', () => {
  it('says which running story it waits for and the files both change', () => {
    assert.equal(describeWait({ kind: 'overlap', waitsFor: 'US-004', files: ['src/api/tasks.ts'] }), 'waits for US-004: both change src/api/tasks.ts');
    assert.equal(describeWait({ kind: 'overlap', waitsFor: 'US-004', files: ['a.ts', 'b.ts'] }), 'waits for US-004: both change a.ts and b.ts');
    assert.equal(describeWait({ kind: 'overlap', waitsFor: 'US-004', files: ['a.ts', 'b.ts', 'c.ts', 'd.ts'] }), 'waits for US-004: both change a.ts, b.ts and 2 more files');
  });
});
