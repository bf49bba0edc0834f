/**
 * Publishing stories as GitHub issues, the pure part (issue 20): the issue a story becomes, the
 * marker that finds it again (and who may make an issue count as a story's), which story has which
 * issue, and the writes that bring the issues to what prd.json says — none when nothing changed.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describeOp, type IssueSeen, type LinkState, planIssues, planLinks, type StoryToPublish } from '../../src/core/github/publishPlan';
import { BODY_LIMIT, featureIssueContent, featureOfBody, labelsFor, storyIdOfBody, storyIssueContent, storyMarker, TITLE_LIMIT } from '../../src/core/github/storyIssue';

const story = (id: string, over: Partial<StoryToPublish> = {}): StoryToPublish => ({
  id,
  title: `Title of ${id}`,
  description: `What ${id} does`,
  acceptanceCriteria: ['It works', 'Typecheck passes'],
  passes: false,
  status: 'ready',
  dependencies: [],
  fieldIssues: [],
  ...over,
});

/** The issue a publish would have written for the story, as GitHub would give it back. */
/** Who published: the repository's owner. */
const PUBLISHER = { login: 'ralph-bot', association: 'OWNER' };

function issueOf(s: StoryToPublish, number: number, over: Partial<IssueSeen> = {}): IssueSeen {
  const c = storyIssueContent(s, s.status, 'ralph/feature');
  return { number, id: 1000 + number, title: c.title, body: c.body, state: c.state, labels: ['ralph', c.stateLabel], author: PUBLISHER, ...over };
}

describe('a story as a GitHub issue', () => {
  it('title "<id>: <title>", the description, the criteria as a checklist (ticked when it passes), the marker last', () => {
    const c = storyIssueContent(story('US-001'), 'ready', 'ralph/feature');
    assert.equal(c.title, 'US-001: Title of US-001');
    assert.equal(c.state, 'open');
    assert.equal(c.stateLabel, 'ralph:ready');
    assert.match(c.body, /^What US-001 does\n\n## Acceptance criteria\n- \[ \] It works\n- \[ \] Typecheck passes\n\n<sub>Published by Ralph Workbench from prd\.json \(feature `ralph\/feature`\)/);
    assert.ok(c.body.endsWith('<!-- ralph-workbench:story US-001 feature ralph%2Ffeature -->'), c.body);
    const done = storyIssueContent(story('US-002', { passes: true }), 'done', 'ralph/feature');
    assert.equal(done.state, 'closed');
    assert.match(done.body, /- \[x\] It works/);
    assert.match(storyIssueContent(story('US-003'), 'blocked', 'f', [4, 7]).body, /\n\nBlocked by #4, #7\n\n<sub>/);
  });

  it('the marker finds the story again for any id, and no id can forge another marker or end the comment', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 60 }), fc.string({ maxLength: 200 }), (id, description) => {
        const c = storyIssueContent(story(id, { description }), 'ready', 'f');
        assert.equal(storyIdOfBody(c.body), id);
        assert.ok(!storyMarker(id).slice(4, -3).includes('-->'), 'the comment ends where we end it');
        assert.equal(featureOfBody(c.body), undefined);
      }),
    );
    // A description that quotes another story's marker does not make the issue that story's: the marker is the last line.
    const c = storyIssueContent(story('US-001', { description: 'see <!-- ralph-workbench:story US-009 -->' }), 'ready', 'f');
    assert.equal(storyIdOfBody(c.body), 'US-001');
    assert.equal(storyIdOfBody('hand-written text'), undefined);
  });

  it('within GitHub’s limits: a long title and text are shortened, the marker stays whole', () => {
    const c = storyIssueContent(story('US-001', { title: 't'.repeat(1000), description: 'd'.repeat(100_000) }), 'ready', 'f');
    assert.equal(c.title.length, TITLE_LIMIT);
    assert.ok(c.body.length <= BODY_LIMIT, `${c.body.length}`);
    assert.match(c.body, /more characters in prd\.json\)/);
    assert.equal(storyIdOfBody(c.body), 'US-001');
  });

  it('labels: ours replaced (ralph and one state label), the user’s kept', () => {
    assert.deepEqual(labelsFor(['bug', 'ralph:ready', 'ralph'], 'ralph:done'), ['bug', 'ralph', 'ralph:done']);
  });

  it('the feature’s parent: named after the branch; part 1 lists the other parts', () => {
    const one = featureIssueContent('ralph/big', 1, { stories: 250, parts: [12, 13] });
    assert.equal(one.title, 'ralph/big: stories published by Ralph Workbench');
    assert.match(one.body, /\n- #12\n- #13\n/);
    assert.deepEqual(featureOfBody(one.body), { branch: 'ralph/big', part: 1 });
    assert.deepEqual(featureOfBody(featureIssueContent('ralph/big', 3, { stories: 250, parts: [] }).body), { branch: 'ralph/big', part: 3 });
  });
});

describe('which story has which issue', () => {
  it('by marker among the ralph issues; by the issue field for an issue written by hand; else created', () => {
    const a = story('A');
    const b = story('B', { fieldIssues: [40] });
    const c = story('C', { fieldIssues: [41] });
    const d = story('D');
    const handWritten: IssueSeen = { number: 40, id: 1040, title: 'Old text', body: 'written by a person', state: 'open', labels: [] };
    const plan = planIssues([a, b, c, d], 'ralph/feature', [issueOf(a, 5), issueOf(d, 41)], new Map([[40, handWritten]]));
    assert.deepEqual(Object.fromEntries([...plan.matches].map(([id, m]) => [id, m.kind === 'create' ? 'create' : `${m.kind} #${m.issue.number}`])), { A: 'marker #5', B: 'linked #40', C: 'create', D: 'marker #41' });
    assert.match(plan.notes.join('\n'), /C: prd\.json names issue #41, which is D's issue: C gets an issue of its own\./);
    assert.equal(plan.partsNeeded, 1);
  });

  it('an issue with the story’s own marker that lost its ralph label, named by the issue field, stays its issue (no copy)', () => {
    const a = story('A', { fieldIssues: [12] });
    const unlabelled = { ...issueOf(a, 12), labels: ['bug'] };
    const plan = planIssues([a], 'f', [], new Map([[12, unlabelled]]));
    assert.deepEqual(plan.matches.get('A'), { kind: 'marker', issue: unlabelled });
    assert.deepEqual(plan.notes, []);
  });

  it('another feature’s issue of a story with the same id is never this feature’s (the marker names the feature)', () => {
    const a = story('US-001');
    const other = issueOf(a, 12, { body: storyIssueContent(a, 'done', 'ralph/feature-a').body, state: 'closed' });
    const plan = planIssues([a], 'ralph/feature-b', [other], new Map());
    assert.deepEqual(plan.matches.get('US-001'), { kind: 'create' });
    assert.match(storyIssueContent(a, 'ready', 'ralph/feature-b').body, /<!-- ralph-workbench:story US-001 feature ralph%2Ffeature-b -->$/);
  });

  it('two issues with one story’s marker: the first is its issue, the other is reported, never a third one made', () => {
    const a = story('A');
    const plan = planIssues([a], 'ralph/feature', [issueOf(a, 9), issueOf(a, 3)], new Map());
    assert.deepEqual(plan.matches.get('A'), { kind: 'marker', issue: issueOf(a, 3) });
    assert.match(plan.notes[0], /^#9 carries the marker of A too \(its issue is #3\)/);
  });

  it('a marker counts only in an issue a trusted author opened: an unknown author, or one the trust setting leaves out, counts as hand-written', () => {
    const a = story('A');
    const outsider = issueOf(a, 2, { author: { login: 'someone', association: 'CONTRIBUTOR' } });
    const unknown = issueOf(a, 3, { author: undefined });
    const plan = planIssues([a], 'ralph/feature', [outsider, unknown], new Map());
    assert.deepEqual(plan.matches.get('A'), { kind: 'create' });
    assert.equal(plan.notes.length, 2);
    assert.match(plan.notes[0], /^#2 carries the marker of A, but its author @someone \(CONTRIBUTOR\) is not OWNER, MEMBER or COLLABORATOR/);
    assert.match(plan.notes[1], /^#3 carries the marker of A, but its author an unknown author \(NONE\)/);
    // Named in the trust setting by login, the same author's marker counts.
    const trusted = planIssues([a], 'ralph/feature', [outsider], new Map(), { trustedAuthors: ['OWNER', '@someone'], artifactFolders: [] });
    assert.deepEqual(trusted.matches.get('A'), { kind: 'marker', issue: outsider });
  });

  it('parents by feature marker and part; 100 stories per parent', () => {
    const stories = Array.from({ length: 201 }, (_, i) => story(`S${i}`));
    const p1 = featureIssueContent('f', 1, { stories: 201, parts: [] });
    const other = featureIssueContent('g', 1, { stories: 1, parts: [] });
    const plan = planIssues(stories, 'f', [{ number: 2, id: 2, title: p1.title, body: p1.body, state: 'open', labels: ['ralph'], author: PUBLISHER }, { number: 3, id: 3, title: other.title, body: other.body, state: 'open', labels: ['ralph'], author: PUBLISHER }], new Map());
    assert.deepEqual([...plan.parents.keys()], [1]);
    assert.equal(plan.parents.get(1)?.number, 2, 'the other feature’s parent is not ours');
    assert.equal(plan.partsNeeded, 3);
  });
});

describe('the writes that bring issues and links to prd.json', () => {
  const parent = (children: number[]): LinkState['parents'][number] => ({ part: 1, issue: { number: 1, id: 1001, title: 'p', body: 'p', state: 'open', labels: ['ralph'] }, children });

  function state(stories: StoryToPublish[], issues: Map<string, IssueSeen>, blockedBy: LinkState['blockedBy'], children: number[], managed = true): LinkState {
    return { feature: 'ralph/feature', stories, issues: new Map([...issues].map(([id, issue]) => [id, { issue, managed }])), parents: [parent(children)], blockedBy };
  }

  it('nothing changed: no write', () => {
    const a = story('A');
    const b = story('B', { status: 'blocked', dependencies: ['A'] });
    const issues = new Map([['A', issueOf(a, 2)], ['B', issueOf(b, 3)]]);
    const plan = planLinks(state([a, b], issues, new Map([[2, []], [3, [{ id: 1002, number: 2, foreign: false }]]]), [1002, 1003]));
    assert.deepEqual(plan.ops, []);
    assert.deepEqual(plan.notes, []);
  });

  it('a changed title, criteria, dependency and passes make exactly the writes they need', () => {
    const a = story('A', { passes: true, status: 'done' });
    const b = story('B', { title: 'New title', status: 'ready', dependencies: ['A'] });
    const c = story('C', { dependencies: [] });
    const issues = new Map([['A', issueOf(story('A'), 2)], ['B', issueOf(story('B'), 3)], ['C', issueOf(c, 4)]]);
    const plan = planLinks(state([a, b, c], issues, new Map([[2, []], [3, []], [4, [{ id: 1003, number: 3, foreign: false }, { id: 77, number: 9, foreign: true }]]]), [1002, 1003]));
    assert.deepEqual(plan.ops.map(describeOp), [
      'update #2 (A): text, labels, close: the story passes',
      'update #3 (B): title',
      'B (#3) blocked by A',
      'C (#4) no longer blocked by B',
      'add C as a sub-issue of #1',
    ]);
    const close = plan.ops[0];
    assert.ok(close.kind === 'update' && close.patch.state === 'closed' && close.patch.stateReason === 'completed');
    assert.deepEqual(close.kind === 'update' ? close.patch.labels : [], ['ralph', 'ralph:done']);
    assert.match(plan.notes.join('\n'), /C: #4 is also blocked by an issue of another repository \(#9\): kept\./);
  });

  it('an issue written by hand keeps its title and text (the difference is reported); its labels and state are ours', () => {
    const a = story('A');
    const issue: IssueSeen = { number: 8, id: 1008, title: 'A person’s title', body: 'A person’s text', state: 'closed', labels: ['bug'] };
    const plan = planLinks(state([a], new Map([['A', issue]]), new Map([[8, []]]), [1008], false));
    assert.deepEqual(plan.ops.map(describeOp), ['update #8 (A): labels, reopen: the story does not pass']);
    assert.match(plan.notes[0], /^A: #8 was written by hand \(no Ralph Workbench marker\): its title and text are left alone/);
  });

  it('without the dependencies API the body lists the blockers; no dependency request is planned', () => {
    const a = story('A');
    const b = story('B', { status: 'blocked', dependencies: ['A'] });
    const issues = new Map([['A', issueOf(a, 2)], ['B', issueOf(b, 3)]]);
    const plan = planLinks(state([a, b], issues, 'unsupported', [1002, 1003]));
    assert.deepEqual(plan.ops.map(describeOp), ['update #3 (B): text']);
    assert.match(plan.ops[0].kind === 'update' ? (plan.ops[0].patch.body ?? '') : '', /Blocked by #2/);
  });

  it('sub-issues go to the first part with room; one already under a parent stays', () => {
    const stories = Array.from({ length: 3 }, (_, i) => story(`S${i}`));
    const issues = new Map(stories.map((s, i) => [s.id, issueOf(s, 10 + i)] as const));
    const full = Array.from({ length: 100 }, (_, i) => 5000 + i);
    const s: LinkState = {
      feature: 'ralph/feature',
      stories,
      issues: new Map([...issues].map(([id, issue]) => [id, { issue, managed: true }])),
      parents: [
        { ...parent(full.slice(0, 99).concat([1010])), part: 1 },
        { part: 2, issue: { number: 20, id: 1020, title: 'p2', body: 'p2', state: 'open', labels: ['ralph'] }, children: [] },
      ],
      blockedBy: new Map(stories.map((_, i) => [10 + i, []])),
    };
    assert.deepEqual(planLinks(s).ops.map(describeOp), ['add S1 as a sub-issue of #20', 'add S2 as a sub-issue of #20']);
  });

  it('a second plan after applying the first plans nothing (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ passes: fc.boolean(), deps: fc.array(fc.nat(7), { maxLength: 3 }), title: fc.string({ maxLength: 10 }) }), { minLength: 1, maxLength: 8 }), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), (specs, stale) => {
        const stories = specs.map((x, i) => story(`S${i}`, { passes: x.passes, status: x.passes ? 'done' : 'ready', title: x.title || 't', dependencies: [...new Set(x.deps.filter((d) => d < i).map((d) => `S${d}`))] }));
        // GitHub as an earlier publish left it, some issues out of date.
        const issues = new Map(stories.map((s, i) => [s.id, stale[i] ? issueOf(story(s.id), 10 + i) : issueOf(s, 10 + i)] as const));
        const deps = new Map<number, { id: number; number: number; foreign: boolean }[]>(stories.map((_, i) => [10 + i, []]));
        const first = planLinks(state(stories, issues, deps, []));
        // Apply it as GitHub would.
        const children: number[] = [];
        for (const op of first.ops) {
          if (op.kind === 'update') {
            const cur = [...issues].find(([, i]) => i.number === op.number);
            assert.ok(cur);
            const { stateReason, ...patch } = op.patch;
            void stateReason;
            issues.set(cur[0], { ...cur[1], ...patch, labels: op.patch.labels ? [...op.patch.labels] : cur[1].labels });
          } else if (op.kind === 'addBlockedBy') {
            deps.get(op.number)?.push({ id: op.blockerId, number: op.blockerId - 1000, foreign: false });
          } else if (op.kind === 'removeBlockedBy') {
            deps.set(op.number, (deps.get(op.number) ?? []).filter((d) => d.id !== op.blockerId));
          } else {
            children.push(op.childId);
          }
        }
        assert.deepEqual(planLinks(state(stories, issues, deps, children)).ops, []);
      }),
      { numRuns: 200 },
    );
  });
});
