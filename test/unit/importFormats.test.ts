/** Issue 22: each backlog format over real files from public repositories (test/fixtures/import/SOURCES.md), and detection. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { detectFormat, type ImportedStory, importFiles, importGitHubIssues, mergeIntoPrd, type SourceFile } from '../../src/core/import/index';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'import');

export function fixture(rel: string): SourceFile {
  return { file: rel, text: readFileSync(path.join(FIXTURES, rel), 'utf8') };
}

export function backlogFolder(): SourceFile[] {
  const dir = 'backlog/backlog/tasks';
  return readdirSync(path.join(FIXTURES, dir))
    .sort()
    .map((name) => ({ ...fixture(`${dir}/${name}`), file: `backlog/tasks/${name}` }));
}

const SPEC_KIT = 'spec-kit/specs/001-todo-crud/tasks.md';
const KIRO = 'kiro/.kiro/specs/user-authentication/tasks.md';
const TASKMASTER = 'taskmaster/tagged/.taskmaster/tasks/tasks.json';
const BEADS = 'beads/.beads/issues.jsonl';

function byId(stories: readonly ImportedStory[], id: string): ImportedStory {
  const s = stories.find((x) => x.id === id);
  assert.ok(s, `no story ${id}`);
  return s;
}

/** Every word-ish run of the text is somewhere in the stories: nothing the source said is lost. */
function assertNoTextLost(lines: readonly string[], stories: readonly ImportedStory[]): void {
  const all = JSON.stringify(stories).replace(/\\"/g, '"');
  for (const line of lines) {
    assert.ok(all.includes(line), `lost: ${line}`);
  }
}

describe('import: spec-kit tasks.md (real file)', () => {
  const result = importFiles([fixture(SPEC_KIT)]);

  it('makes one story per task line, checked boxes ([X]) passing, priorities in file order', () => {
    assert.equal(result.format, 'spec-kit');
    assert.deepEqual(result.stories.map((s) => s.id), Array.from({ length: 19 }, (_, i) => `T${String(i + 1).padStart(3, '0')}`));
    assert.ok(result.stories.every((s) => s.passes));
    assert.deepEqual(result.stories.slice(0, 3).map((s) => s.priority), [1, 2, 3]);
    assert.deepEqual(result.warnings, []);
  });

  it('takes "depends on" ids (ranges expanded) as blockedBy, else the previous phase', () => {
    assert.deepEqual(byId(result.stories, 'T005').blockedBy, ['T002', 'T004']);
    assert.deepEqual(byId(result.stories, 'T019').blockedBy, ['T009', 'T010', 'T011', 'T012', 'T013', 'T014', 'T015', 'T016', 'T017']);
    // T008 names no dependency: it waits on the Setup phase; [P], so not on T007 before it
    assert.deepEqual(byId(result.stories, 'T008').blockedBy, ['T001', 'T002', 'T003']);
    // T003 is [P] in the first phase: it waits on nothing
    assert.equal(byId(result.stories, 'T003').blockedBy, undefined);
  });

  it('keeps the task text as the acceptance criterion, the phase and story label in the description', () => {
    const t9 = byId(result.stories, 'T009');
    assert.match(t9.acceptanceCriteria[0], /^`tests\/api\/tasks\.test\.ts`에 `POST \/api\/tasks` 통합 테스트/);
    assert.equal(t9.description, 'Phase 3: User Story 1 - 할 일 추가 (Priority: P1) 🎯 MVP\nStory: US1');
    assert.deepEqual(t9.source, { format: 'spec-kit', file: SPEC_KIT, id: 'T009' });
  });

  it('reports a checklist item without a task id, with its line, and does not import it', () => {
    const r = importFiles([{ file: 'tasks.md', text: '## Phase 1: Setup\n\n- [ ] T001 Create project\n\n## Completion\n\n- [ ] All tasks marked\n' }]);
    assert.deepEqual(r.stories.map((s) => s.id), ['T001']);
    assert.deepEqual(r.warnings.map((w) => w.line), [7]);
    assert.match(r.warnings[0].message, /without a task id/);
  });
});

describe('import: Kiro tasks.md (real file)', () => {
  const result = importFiles([fixture(KIRO)]);

  it('makes one story per numbered task, sub-tasks as its acceptance criteria, in plan order', () => {
    assert.equal(result.format, 'kiro');
    assert.deepEqual(result.stories.map((s) => s.id), Array.from({ length: 15 }, (_, i) => `KIRO-${i + 1}`));
    assert.deepEqual(result.stories.map((s) => s.passes), [...Array<boolean>(11).fill(true), ...Array<boolean>(4).fill(false)]);
    assert.deepEqual(byId(result.stories, 'KIRO-2').blockedBy, ['KIRO-1']);
    assert.equal(byId(result.stories, 'KIRO-1').blockedBy, undefined);
    const k2 = byId(result.stories, 'KIRO-2');
    assert.equal(k2.acceptanceCriteria.length, 7);
    assert.equal(
      k2.acceptanceCriteria[0],
      '2.1 Set up MariaDB database and connection configuration: Create database schema with proper indexing for performance; Configure HikariCP connection pool for optimal performance; Add database migration scripts using Flyway (Requirements: 1.1, 2.1, 4.1) [done]',
    );
  });

  it('keeps the requirements, the optional mark and every bullet', () => {
    const k1 = byId(result.stories, 'KIRO-1');
    assert.equal(k1.acceptanceCriteria[0], 'Requirements: 1.1, 2.1, 4.1, 5.1');
    assert.match(k1.description, /^Create Spring Boot project with Maven\/Gradle build configuration\n/);
    const k7 = byId(result.stories, 'KIRO-7');
    assert.ok(k7.acceptanceCriteria.some((c) => c.startsWith('7.4 Write unit tests for valid login') && c.includes('(optional)') && !c.includes('[done]')));
    const text = readFileSync(path.join(FIXTURES, KIRO), 'utf8');
    const lines = text.split('\n').map((l) => l.replace(/^\s*-\s+(\[[ x]\]\*?\s+)?/, '').replace(/^_Requirements:\s*|_$/g, '').replace(/^\d+(\.\d+)*\.?\s+/, '').trim()).filter((l) => l !== '' && l !== '# Implementation Plan');
    assertNoTextLost(lines, result.stories);
  });
});

describe('import: Kiro tasks.md (written forms)', () => {
  it('a _Depends:_ line names what a task waits on instead of the task before it; a sub-task\'s stays in its criterion', () => {
    const text = '# Implementation Plan\n\n- [ ] 1. A\n- [ ] 2. B\n- [ ] 3. C\n  - _Depends: 1_\n  - [ ] 3.1 Part\n    - _Depends: 2.1_\n';
    const r = importFiles([{ file: 'tasks.md', text }], { format: 'kiro' });
    assert.deepEqual(r.stories.map((s) => [s.id, s.blockedBy]), [['KIRO-1', undefined], ['KIRO-2', ['KIRO-1']], ['KIRO-3', ['KIRO-1']]]);
    assert.deepEqual(r.stories[2].acceptanceCriteria, ['3.1 Part (Depends: 2.1)']);
  });
});

describe('import: Taskmaster tasks.json (real file, tagged)', () => {
  const result = importFiles([fixture(TASKMASTER)]);

  it('maps ids, statuses, priorities and dependencies of the master tag', () => {
    assert.equal(result.format, 'taskmaster');
    assert.deepEqual(result.stories.map((s) => s.id), Array.from({ length: 10 }, (_, i) => `TM-${i + 1}`));
    assert.deepEqual(result.stories.map((s) => s.passes), [true, true, false, false, false, false, false, false, false, false]);
    assert.deepEqual(result.stories.map((s) => s.priority), [1, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
    assert.deepEqual(byId(result.stories, 'TM-7').blockedBy, ['TM-2', 'TM-1']);
    assert.equal(byId(result.stories, 'TM-1').blockedBy, undefined);
    assert.deepEqual(byId(result.stories, 'TM-2').source, { format: 'taskmaster', file: TASKMASTER, id: '2' });
  });

  it('makes testStrategy and the sub-tasks the acceptance criteria, their text whole', () => {
    const t2 = byId(result.stories, 'TM-2');
    assert.equal(t2.acceptanceCriteria.length, 6);
    assert.match(t2.acceptanceCriteria[0], /^Unit test API with mock LLM responses\./);
    assert.match(t2.acceptanceCriteria[2], /^2\.2 Implement Abstract Provider Layer for LLMs: Design and implement .* \(after 2\.1\) \[done\]$/);
    assert.ok(t2.acceptanceCriteria[1].includes('</info added on 2025-09-16T09:16:45.924Z>'));
    assert.match(t2.description, /^Develop the `\/api\/enhance` endpoint.*\n\nCreate a tRPC router/s);
  });

  it('reads the legacy format (real file: {"tasks": [...]}, status completed)', () => {
    const r = importFiles([fixture('taskmaster/legacy/tasks/tasks.json')]);
    assert.equal(r.format, 'taskmaster');
    assert.equal(r.stories.length, 20);
    assert.deepEqual(r.stories.filter((s) => s.passes).map((s) => s.id), ['TM-1', 'TM-2', 'TM-3', 'TM-4', 'TM-5', 'TM-7']);
    assert.deepEqual(byId(r.stories, 'TM-20').blockedBy, Array.from({ length: 19 }, (_, i) => `TM-${i + 1}`));
    assert.deepEqual([byId(r.stories, 'TM-20').priority, byId(r.stories, 'TM-9').priority], [3, 1]);
    assert.deepEqual(byId(r.stories, 'TM-11').acceptanceCriteria, ['Test with screen readers on multiple browsers. Verify keyboard navigation works for all interactive elements. Conduct an accessibility audit using automated tools and manual testing.']);
    assert.deepEqual(r.warnings, []);
  });

  it('legacy tasks with Taskmaster statuses such as deferred keep the status in notes', () => {
    const legacy = JSON.stringify({ tasks: [{ id: 1, title: 'A', status: 'completed', priority: 'low' }, { id: 2, title: 'B', status: 'deferred', dependencies: [1] }] });
    const r = importFiles([{ file: 'tasks/tasks.json', text: legacy }]);
    assert.deepEqual(r.stories.map((s) => [s.id, s.passes, s.priority, s.blockedBy, s.notes]), [['TM-1', true, 3, undefined, undefined], ['TM-2', false, 2, ['TM-1'], 'Taskmaster status: deferred']]);
  });

  it('takes --tag, then the state file\'s current tag, else master; an unknown tag names the tags there are', () => {
    const text = JSON.stringify({ master: { tasks: [{ id: 1, title: 'M' }] }, 'feature-x': { tasks: [{ id: 1, title: 'X' }] } });
    const file = { file: 'tasks.json', text };
    assert.equal(importFiles([file]).stories[0].title, 'M');
    assert.equal(importFiles([file], { defaultTag: 'feature-x' }).stories[0].title, 'X');
    assert.equal(importFiles([file], { tag: 'master', defaultTag: 'feature-x' }).stories[0].title, 'M');
    assert.throws(() => importFiles([file], { tag: 'nope' }), /no tag "nope"; its tags: master, feature-x/);
  });
});

describe('import: beads issues.jsonl (real file)', () => {
  const result = importFiles([fixture(BEADS)]);

  it('maps every issue; blocks dependencies to blockedBy; closed issues pass', () => {
    assert.equal(result.format, 'beads');
    assert.equal(result.stories.length, 10);
    assert.ok(result.stories.every((s) => s.passes));
    assert.deepEqual(byId(result.stories, 'fal-cli-kkb').blockedBy, ['fal-cli-26o', 'fal-cli-pdd']);
    assert.deepEqual(byId(result.stories, 'fal-cli-8xa').priority, 3);
    assert.deepEqual(result.warnings, []);
  });

  it('takes the checklist of the design as acceptance criteria and keeps design and notes', () => {
    const s = byId(result.stories, 'fal-cli-26o');
    assert.deepEqual(s.acceptanceCriteria, [
      'runGeneration(input, onStatus, options) calls fal.subscribe and returns { data, requestId }',
      'extractOutputFiles(data) handles: images[], video, audio, and fallback CDN URL walking',
      'Both functions exported from fal-client.js',
      'Basic unit tests for both functions pass',
    ]);
    assert.match(s.description, /## Verify\nnode --test src\/lib\/fal-client\.test\.js$/);
    assert.equal(s.notes, 'Epic: fal-cli-ex8. Tracer task 1/3.');
  });

  it('parent-child: the parent waits on its children; other types go to notes and are reported; broken lines and deleted issues are reported with their line', () => {
    const lines = [
      JSON.stringify({ id: 'bd-1', title: 'Epic', status: 'open', priority: 1, issue_type: 'epic' }),
      JSON.stringify({ id: 'bd-2', title: 'Child', status: 'closed', dependencies: [{ issue_id: 'bd-2', depends_on_id: 'bd-1', type: 'parent-child' }] }),
      '{"id": "bd-3", "title": ',
      JSON.stringify({ id: 'bd-4', title: 'Gone', status: 'tombstone' }),
      JSON.stringify({ id: 'bd-5', title: 'Found while', status: 'open', dependencies: [{ issue_id: 'bd-5', depends_on_id: 'bd-2', type: 'discovered-from' }] }),
    ];
    const r = importFiles([{ file: '.beads/issues.jsonl', text: lines.join('\n') }]);
    assert.deepEqual(r.stories.map((s) => s.id), ['bd-1', 'bd-2', 'bd-5']);
    assert.deepEqual(byId(r.stories, 'bd-1').blockedBy, ['bd-2']);
    assert.equal(byId(r.stories, 'bd-5').notes, 'discovered-from: bd-2');
    assert.deepEqual(r.warnings.map((w) => w.line), [3, 4, 5]);
  });
});

describe('import: Backlog.md folder (real files)', () => {
  it('gives the prd.json written by hand', () => {
    const result = importFiles(backlogFolder());
    const { text } = mergeIntoPrd(undefined, result, { projectName: 'Backlog.md', sourceLabel: 'backlog/tasks' });
    assert.deepEqual(JSON.parse(text), JSON.parse(readFileSync(path.join(FIXTURES, 'expected', 'backlog.prd.json'), 'utf8')));
  });

  it('reports a task file without front matter or with broken YAML, and imports the others', () => {
    const r = importFiles([...backlogFolder(), { file: 'backlog/tasks/notes.md', text: '# just notes\n' }, { file: 'backlog/tasks/bad.md', text: '---\nid: [unclosed\n---\n' }], { format: 'backlog' });
    assert.equal(r.stories.length, 3);
    assert.deepEqual(r.warnings.map((w) => w.file), ['backlog/tasks/notes.md', 'backlog/tasks/bad.md']);
  });
});

describe('import: GitHub issues (mapping)', () => {
  it('maps numbers, closed state, checklist, priority labels, blocked-by and sub-issues', () => {
    const r = importGitHubIssues(
      [
        { number: 1, title: 'Epic', body: '', state: 'open', labels: ['P1'], blockedBy: [], subIssues: [2, 'other/repo#9'] },
        { number: 2, title: 'Part', body: 'Do it\n- [ ] works\n- [x] tested', state: 'closed', labels: ['priority: low'], blockedBy: [3], subIssues: [] },
      ],
      'o/r',
    );
    assert.deepEqual(r.stories.map((s) => [s.id, s.passes, s.priority, s.blockedBy, s.acceptanceCriteria]), [
      ['GH-1', false, 1, ['GH-2', 'other/repo#9'], []],
      ['GH-2', true, 3, ['GH-3'], ['works', 'tested']],
    ]);
    assert.deepEqual(r.stories[0].source, { format: 'github', file: 'o/r', id: '#1' });
    assert.equal(r.warnings.length, 1);
  });
});

describe('import: detection', () => {
  it('detects each real file', () => {
    for (const [file, format] of [[SPEC_KIT, 'spec-kit'], [KIRO, 'kiro'], [TASKMASTER, 'taskmaster'], [BEADS, 'beads']] as const) {
      assert.deepEqual(detectFormat(file, fixture(file).text), { format }, file);
    }
    for (const f of backlogFolder()) {
      assert.deepEqual(detectFormat(f.file, f.text), { format: 'backlog' }, f.file);
    }
  });

  it('names the known formats and why a file matched none', () => {
    const cases: [string, string, RegExp][] = [
      ['README.md', '# Hello\n\nSome prose.\n', /no task lines, no front matter, no JSON/],
      ['prd.json', '{"userStories": []}', /is a prd\.json already/],
      ['package.json', '{"name": "x"}', /without a "tasks" list \(keys: name\)/],
      ['empty.md', '  \n', /the file is empty/],
      ['todo.md', '- [ ] buy milk\n', /checklist items but no task ids/],
      ['x.jsonl', 'not json\n', /first line is not a JSON object/],
      ['broken.json', '{"name": ', /does not parse as JSON/],
    ];
    for (const [name, text, why] of cases) {
      const d = detectFormat(name, text);
      assert.ok('error' in d, name);
      assert.match(d.error, why);
      assert.match(d.error, /Known formats:\n {2}spec-kit .*\n {2}kiro .*\n {2}taskmaster .*\n {2}beads .*\n {2}backlog .*\n {2}github/);
    }
  });

  it('a broken file with a "tasks" list is Taskmaster\'s, and the import says where it breaks', () => {
    assert.deepEqual(detectFormat('tasks.json', '{"tasks": [\n  {"id": 1,,}\n'), { format: 'taskmaster' });
    assert.throws(() => importFiles([{ file: 'tasks.json', text: '{"tasks": [\n  {"id": 1,,}\n' }]), /tasks\.json is not valid JSON \(\w+ at line 2\)/);
  });
});
