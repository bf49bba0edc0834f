import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { artifactOfPath, discoverOnDisk, issueNumbersIn } from '../../src/core/artifacts/discovery';
import { issueArtifacts, phaseOf, type ArtifactEntry } from '../../src/core/artifacts/issueArtifacts';
import { type ArtifactComment, parseArtifactComment, scanComments, selfHealBody, SELF_HEAL_NOTE, verdictFromDocument, type IssueComment } from '../../src/core/artifacts/protocol';
import { issuePlanSection, planSources } from '../../src/core/artifacts/promptSection';
import { planSelfHeal } from '../../src/core/artifacts/selfHeal';
import { buildPrompt } from '../../src/core/context/prompt';
import { analyzePrd } from '../../src/core/prd/index';
import { issuesOfStory } from '../../src/core/artifacts/storyIssues';
import { apiUrlForHost, blobUrl, mapArtifactUrl, parseRemoteUrl, parseRepoSlug, webHostForApiUrl } from '../../src/core/artifacts/url';

const repo = { owner: 'acme', repo: 'taskflow', host: 'github.com' };
const blob = (path: string, r = 'main'): string => `https://github.com/acme/taskflow/blob/${r}/${path}`;
let nextId = 1;
function c(body: string, created = '2026-11-16T10:00:00Z', id = nextId++): IssueComment {
  return { id, body, created_at: created, html_url: `https://github.com/acme/taskflow/issues/42#issuecomment-${id}`, author_association: 'OWNER', user: { login: 'lead' } };
}
function artifactOf(body: string): { artifact: ArtifactComment } {
  const p = parseArtifactComment(c(body));
  assert.ok(p && 'artifact' in p, `expected an artifact comment: ${JSON.stringify(p)}`);
  return p;
}

describe('artifact comment protocol', () => {
  it('reads each exact first-line header, the URL on the next non-empty line and up to three summary lines', () => {
    const p = artifactOf(`## Research Document\n\n${blob('thoughts/shared/research/2026-11-15-GH-0042-x.md')}\n\nKey findings: one.\nTwo.\nThree.\nFour.`);
    assert.equal(p.artifact.kind, 'research');
    assert.equal(p.artifact.url, blob('thoughts/shared/research/2026-11-15-GH-0042-x.md'));
    assert.deepEqual(p.artifact.summary, ['Key findings: one.', 'Two.', 'Three.']);
    assert.deepEqual(p.artifact.notes, []);
    for (const [header, kind] of [
      ['## Implementation Plan', 'plan'],
      ['## Group Implementation Plan', 'group-plan'],
      ['## Plan Review', 'review'],
      ['## Implementation Complete', 'implementation'],
    ] as const) {
      assert.equal(artifactOf(`${header}\n\nhttps://github.com/acme/taskflow/pull/7`).artifact.kind, kind);
    }
  });

  it('is not an artifact comment when the header is not exact', () => {
    for (const body of ['### Research Document\n\nhttps://x.y/z', '## Research Documents\n\nhttps://x.y/z', '## research document\n\nhttps://x.y/z', 'Research Document\nhttps://x.y/z']) {
      const p = parseArtifactComment(c(body));
      assert.ok(p === null || 'ignored' in p, body);
    }
  });

  it('reads a Plan Review with the VERDICT first and the URL prefixed by text', () => {
    const p = artifactOf(`## Plan Review\n\nVERDICT: NEEDS_ITERATION\n\nFull critique: ${blob('thoughts/shared/reviews/2026-11-16-GH-0042-critique.md')}\n\nThe phases are too big.`);
    assert.equal(p.artifact.verdict, 'NEEDS_ITERATION');
    assert.equal(p.artifact.url, blob('thoughts/shared/reviews/2026-11-16-GH-0042-critique.md'));
    assert.deepEqual(p.artifact.summary, ['The phases are too big.']);
    assert.equal(artifactOf(`## Plan Review\n\n**VERDICT: APPROVED**\n\n[critique](${blob('a.md')})`).artifact.verdict, 'APPROVED');
  });

  it('a markdown link gives the bare URL; trailing punctuation is not part of it', () => {
    assert.equal(artifactOf(`## Implementation Plan\n\n[Plan](${blob('p.md')})`).artifact.url, blob('p.md'));
    assert.equal(artifactOf(`## Implementation Plan\n\nSee ${blob('p.md')}.`).artifact.url, blob('p.md'));
    assert.equal(artifactOf(`## Implementation Plan\n\n<${blob('p.md')}>`).artifact.url, blob('p.md'));
  });

  it('a header in the middle of a comment, or quoted, is reported and not linked', () => {
    const mid = parseArtifactComment(c(`Thanks!\n\n## Implementation Plan\n\n${blob('p.md')}`));
    assert.ok(mid && 'ignored' in mid);
    assert.match(mid.ignored.reason, /line 3, not the first line/);
    const quoted = parseArtifactComment(c(`> ## Research Document\n>\n> ${blob('r.md')}\n\nIs this still right?`));
    assert.ok(quoted && 'ignored' in quoted);
    assert.match(quoted.ignored.reason, /quoted header/);
  });

  it('two URLs: the first after the header is the artifact, and the comment says so', () => {
    const p = artifactOf(`## Implementation Plan\n\n${blob('a.md')}\n\nSupersedes ${blob('b.md')}`);
    assert.equal(p.artifact.url, blob('a.md'));
    assert.match(p.artifact.notes.join(), /2 URLs/);
  });

  it('a header without a URL is an artifact comment with no URL and a note', () => {
    const p = artifactOf('## Research Document\n\nStill writing it.');
    assert.equal(p.artifact.url, undefined);
    assert.match(p.artifact.notes.join(), /no URL/);
  });

  it('CRLF line ends and leading blank lines are accepted', () => {
    assert.equal(artifactOf(`\r\n## Research Document\r\n\r\n${blob('r.md')}\r\n`).artifact.url, blob('r.md'));
  });

  it('the most recent comment of a kind wins, whatever the order of the list', () => {
    const old = c(`## Implementation Plan\n\n${blob('old.md')}`, '2026-11-10T00:00:00Z');
    const recent = c(`## Implementation Plan\n\n${blob('new.md')}`, '2026-11-12T00:00:00Z');
    assert.equal(scanComments([old, recent]).latest.get('plan')?.url, blob('new.md'));
    assert.equal(scanComments([recent, old]).latest.get('plan')?.url, blob('new.md'));
  });

  it('a self-heal body is header, URL and the note, and reads back as linked', () => {
    const body = selfHealBody('plan', blob('thoughts/shared/plans/x.md'));
    assert.equal(body, `## Implementation Plan\n\n${blob('thoughts/shared/plans/x.md')}\n\n(Self-healed: artifact was found on disk but not linked via comment)`);
    const p = artifactOf(body);
    assert.equal(p.artifact.selfHealed, true);
    assert.deepEqual(p.artifact.summary, []);
    assert.ok(SELF_HEAL_NOTE.startsWith('(Self-healed'));
  });

  it('reads a review document verdict from front matter or a Verdict line', () => {
    assert.equal(verdictFromDocument('---\nverdict: APPROVED\n---\n# x'), 'APPROVED');
    assert.equal(verdictFromDocument('# Review\n\n**Verdict: NEEDS_ITERATION**, because'), 'NEEDS_ITERATION');
    assert.equal(verdictFromDocument('# Review\n\nNo decision yet.'), undefined);
  });
});

describe('artifact URLs', () => {
  it('maps a blob of this repository to its path, dropping query and fragment', () => {
    assert.deepEqual(mapArtifactUrl(blob('thoughts/shared/plans/p.md?plain=1#L10'), repo), { local: true, path: 'thoughts/shared/plans/p.md', ref: 'main' });
    assert.deepEqual(mapArtifactUrl('https://GitHub.com/ACME/TaskFlow/blob/abc123/docs/a%20b.md', repo), { local: true, path: 'docs/a b.md', ref: 'abc123' });
  });

  it('a ref with slashes is recognised when the path starts with thoughts/', () => {
    assert.deepEqual(mapArtifactUrl(blob('thoughts/shared/plans/p.md', 'feature/x'), repo), { local: true, path: 'thoughts/shared/plans/p.md', ref: 'feature/x' });
  });

  it('another repository, another host, a non-blob page or ../ is never a local path', () => {
    for (const url of [
      'https://github.com/other/taskflow/blob/main/thoughts/shared/plans/p.md',
      'https://github.com/acme/other/blob/main/thoughts/shared/plans/p.md',
      'https://gitlab.com/acme/taskflow/blob/main/p.md',
      'https://github.com/acme/taskflow/pull/7',
      'https://github.com/acme/taskflow/tree/main/thoughts',
      'https://github.com/acme/taskflow/blob/main/../../etc/passwd',
      'https://github.com/acme/taskflow/blob/main/thoughts/../../../x.md',
      'https://github.com/acme/taskflow/blob/main/%2e%2e/%2e%2e/x.md',
      'https://github.com/acme/taskflow/blob/main/a%2F..%2F..%2Fx.md',
      'https://github.com/acme/taskflow/blob/main/C%3A/x.md',
      'not a url',
    ]) {
      const m = mapArtifactUrl(url, repo);
      assert.equal(m.local, false, url);
    }
  });

  it('GitHub Enterprise: the host must be the enterprise host', () => {
    const ghe = { owner: 'acme', repo: 'taskflow', host: 'ghe.example.com' };
    assert.equal(mapArtifactUrl('https://ghe.example.com/acme/taskflow/blob/main/p.md', ghe).local, true);
    assert.equal(mapArtifactUrl('https://github.com/acme/taskflow/blob/main/p.md', ghe).local, false);
    assert.equal(apiUrlForHost('ghe.example.com'), 'https://ghe.example.com/api/v3');
    assert.equal(apiUrlForHost('octo.ghe.com'), 'https://api.octo.ghe.com');
    assert.equal(webHostForApiUrl('https://ghe.example.com/api/v3'), 'ghe.example.com');
    assert.equal(webHostForApiUrl('https://api.github.com'), 'github.com');
  });

  it('property: whatever the URL, a mapped path has no empty, . or .. segment', () => {
    const seg = fc.oneof(fc.constantFrom('..', '.', '', '%2e%2e', '%2E.', 'a', 'thoughts', 'x%2Fy', '%00'), fc.string({ maxLength: 4 }));
    fc.assert(
      fc.property(fc.array(seg, { maxLength: 6 }), (segments) => {
        const m = mapArtifactUrl(`https://github.com/acme/taskflow/blob/main/${segments.join('/')}`, repo);
        if (m.local) {
          assert.ok(m.path.split('/').every((s) => s !== '' && s !== '.' && s !== '..' && !s.includes('\\') && !s.includes('\0')), m.path);
        }
      }),
    );
  });

  it('a malformed percent escape anywhere (the ref included) is a remote link, never an exception', () => {
    assert.equal(mapArtifactUrl('https://github.com/acme/taskflow/blob/%/thoughts/a.md', repo).local, false);
    assert.equal(mapArtifactUrl('https://github.com/acme/taskflow/blob/main/thoughts/%E0%A4%A.md', repo).local, false);
  });

  it('blobUrl round-trips through mapArtifactUrl', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 6 }).filter((s) => !/[/\\\0]/.test(s) && s !== '.' && s !== '..' && !/^[a-zA-Z]:$/.test(s)) /* a drive-letter segment is refused by design */, { minLength: 1, maxLength: 4 }), (segs) => {
        const path = ['thoughts', ...segs].join('/');
        const m = mapArtifactUrl(blobUrl(repo, 'main', path), repo);
        assert.deepEqual(m, { local: true, path, ref: 'main' });
      }),
    );
  });

  it('parses remotes and slugs', () => {
    assert.deepEqual(parseRemoteUrl('git@github.com:acme/taskflow.git'), repo);
    assert.deepEqual(parseRemoteUrl('https://github.com/acme/taskflow'), repo);
    assert.deepEqual(parseRemoteUrl('ssh://git@ghe.example.com:2222/acme/taskflow.git'), { host: 'ghe.example.com', owner: 'acme', repo: 'taskflow' });
    assert.equal(parseRemoteUrl('/local/path/repo'), undefined);
    assert.deepEqual(parseRepoSlug('acme/taskflow', 'github.com'), repo);
    assert.equal(parseRepoSlug('acme', 'github.com'), undefined);
  });
});

describe('fallback discovery by file name', () => {
  const listing = {
    research: ['2026-11-15-GH-0042-task-priorities.md', '2026-11-17-GH-0043-notes.md', '2026-11-18-GH-420-other.md'],
    plans: ['2026-11-16-GH-42-task-priorities.md', '2026-11-17-group-GH-0043-notifications.md', '2026-11-10-GH-0042-old.md'],
    reviews: ['2026-11-16-GH-0042-critique.md', '2026-11-16-GH-4200-critique.md'],
  };

  it('GH-42 and GH-0042 are the same issue; GH-420 and GH-4200 are not', () => {
    const found = discoverOnDisk(42, listing);
    assert.deepEqual(found, [
      { kind: 'research', path: 'thoughts/shared/research/2026-11-15-GH-0042-task-priorities.md' },
      { kind: 'plan', path: 'thoughts/shared/plans/2026-11-16-GH-42-task-priorities.md' },
      { kind: 'plan', path: 'thoughts/shared/plans/2026-11-10-GH-0042-old.md' },
      { kind: 'review', path: 'thoughts/shared/reviews/2026-11-16-GH-0042-critique.md' },
    ]);
    assert.deepEqual(discoverOnDisk(420, listing).map((d) => d.path), ['thoughts/shared/research/2026-11-18-GH-420-other.md']);
  });

  it('group plans are plans of kind group-plan', () => {
    assert.deepEqual(discoverOnDisk(43, listing).map((d) => d.kind), ['research', 'group-plan']);
  });

  it('property: a number padded to any width names the same issue and no other', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 99999 }), fc.integer({ min: 0, max: 4 }), (n, pad) => {
        const name = `2026-01-01-GH-${String(n).padStart(pad + String(n).length, '0')}-x.md`;
        assert.deepEqual(issueNumbersIn(name), [n]);
        assert.equal(discoverOnDisk(n * 10, { plans: [name] }).length, 0);
      }),
    );
  });

  it('knows the issue and kind of an artifact path (Link to Issue)', () => {
    assert.deepEqual(artifactOfPath('thoughts/shared/plans/2026-11-17-group-GH-0043-x.md'), { issue: 43, kind: 'group-plan' });
    assert.deepEqual(artifactOfPath('thoughts/shared/reviews/2026-11-16-GH-0042-critique.md'), { issue: 42, kind: 'review' });
    assert.equal(artifactOfPath('thoughts/shared/plans/sub/GH-1.md'), undefined);
    assert.equal(artifactOfPath('docs/GH-1.md'), undefined);
    assert.equal(artifactOfPath('thoughts/shared/plans/no-number.md'), undefined);
  });
});

describe('an issue\'s artifacts and phase', () => {
  const disk = discoverOnDisk(42, {
    research: ['2026-11-15-GH-0042-r.md'],
    plans: ['2026-11-16-GH-0042-p.md'],
    reviews: ['2026-11-16-GH-0042-critique.md'],
  });
  const all = new Set(disk.map((d) => d.path));
  const isLocalFile = (p: string): boolean => all.has(p);

  it('linked from a comment, on disk but not linked, missing', () => {
    const r = issueArtifacts({
      number: 42,
      comments: [c(`## Research Document\n\n${blob('thoughts/shared/research/2026-11-15-GH-0042-r.md')}`)],
      disk: disk.filter((d) => d.kind !== 'review'),
      repo,
      isLocalFile,
    });
    assert.deepEqual(
      r.artifacts.map((a) => [a.kind, a.status, a.path]),
      [
        ['research', 'linked', 'thoughts/shared/research/2026-11-15-GH-0042-r.md'],
        ['plan', 'on-disk', 'thoughts/shared/plans/2026-11-16-GH-0042-p.md'],
        ['review', 'missing', undefined],
        ['implementation', 'missing', undefined],
      ],
    );
    assert.equal(r.phase, 'review');
  });

  it('a link into another repository keeps the remote entry and adds the local file as on-disk', () => {
    const r = issueArtifacts({
      number: 42,
      comments: [c('## Research Document\n\nhttps://github.com/fork/taskflow/blob/main/thoughts/shared/research/2026-11-15-GH-0042-r.md')],
      disk,
      repo,
      isLocalFile,
    });
    const research = r.artifacts.filter((a) => a.kind === 'research');
    assert.deepEqual(research.map((a) => [a.status, a.path]), [['linked', undefined], ['on-disk', 'thoughts/shared/research/2026-11-15-GH-0042-r.md']]);
    assert.match(research[0].remoteReason ?? '', /fork\/taskflow/);
  });

  it('a linked path that is not in the workspace is not a local file, and says so', () => {
    const r = issueArtifacts({ number: 42, comments: [c(`## Research Document\n\n${blob('thoughts/shared/research/gone.md')}`)], disk: [], repo, isLocalFile });
    assert.equal(r.artifacts[0].path, undefined);
    assert.match(r.warnings.join('\n'), /not in this workspace/);
  });

  it('warns when a prerequisite is missing', () => {
    const e = (kind: ArtifactEntry['kind'], extra: Partial<ArtifactEntry> = {}): ArtifactEntry => ({ kind, status: 'linked', ...extra });
    assert.match(phaseOf([e('plan')]).warnings.join(), /no research/);
    assert.match(phaseOf([e('research'), e('implementation')]).warnings.join(), /no plan/);
    const needs = phaseOf([e('research'), e('plan'), e('review', { verdict: 'NEEDS_ITERATION', createdAt: '2026-01-02T00:00:00Z' }), e('implementation', { createdAt: '2026-01-03T00:00:00Z' })]);
    assert.match(needs.warnings.join(), /NEEDS_ITERATION/);
    assert.deepEqual(phaseOf([e('research'), e('plan'), e('review', { verdict: 'APPROVED' })]), { phase: 'implement', warnings: [] });
    assert.equal(phaseOf([e('research'), e('plan', { createdAt: '2026-01-01T00:00:00Z' }), e('review', { verdict: 'NEEDS_ITERATION', createdAt: '2026-01-02T00:00:00Z' })]).phase, 'plan');
    assert.equal(phaseOf([e('research'), e('plan', { createdAt: '2026-01-03T00:00:00Z' }), e('review', { verdict: 'NEEDS_ITERATION', createdAt: '2026-01-02T00:00:00Z' })]).phase, 'review');
    assert.equal(phaseOf([]).phase, 'research');
    assert.equal(phaseOf([e('research')]).phase, 'plan');
    assert.equal(phaseOf([e('implementation'), e('plan'), e('research')]).phase, 'done');
  });

  it('reports ignored comments as warnings', () => {
    const r = issueArtifacts({ number: 42, comments: [c(`Hi\n## Research Document\n${blob('x.md')}`)], disk: [], repo, isLocalFile });
    assert.match(r.warnings.join(), /not the first line/);
    assert.equal(r.artifacts[0].status, 'missing');
  });
});

describe('self-heal planning', () => {
  const candidates = [
    { kind: 'plan' as const, status: 'on-disk' as const, path: 'thoughts/shared/plans/2026-11-16-GH-0042-p.md' },
    { kind: 'review' as const, status: 'on-disk' as const, path: 'thoughts/shared/reviews/2026-11-16-GH-0042-critique.md' },
  ];
  it('plans one comment per on-disk artifact, in the protocol format on the default branch', () => {
    const plan = planSelfHeal(candidates, [], repo, 'trunk');
    assert.equal(plan.length, 2);
    assert.equal(plan[0].body, `## Implementation Plan\n\n${blob('thoughts/shared/plans/2026-11-16-GH-0042-p.md', 'trunk')}\n\n${SELF_HEAL_NOTE}`);
  });
  it('never plans a link that a comment already has, under any ref', () => {
    const fresh = [c(`## Implementation Plan\n\n${blob('thoughts/shared/plans/2026-11-16-GH-0042-p.md', 'abc')}`)];
    assert.deepEqual(planSelfHeal(candidates, fresh, repo, 'main').map((p) => p.kind), ['review']);
    assert.deepEqual(planSelfHeal([...candidates, candidates[1]], [], repo, 'main').length, 2);
  });
});

describe('which issues a story belongs to', () => {
  it('the issue field first, then GH-<n> and #<n> in id, title and notes', () => {
    assert.deepEqual(issuesOfStory({ id: 'US-001', issue: 42 }), [42]);
    assert.deepEqual(issuesOfStory({ id: 'US-001', issue: '#7', title: 'Fix GH-0042 (see #43)' }), [7, 42, 43]);
    assert.deepEqual(issuesOfStory({ id: 'GH-12', notes: 'https://github.com/a/b/issues/9 and &#39; a/b#5' }), [12]);
    assert.deepEqual(issuesOfStory({ id: 'US-1', issue: 'https://github.com/a/b/issues/99' }), [99]);
    assert.deepEqual(issuesOfStory({ id: 'US-1', title: 'color #fff' }), []);
  });

  it('the issue field is read where the PRD model found each story, in every shape it reads', () => {
    const story = (id: string, issue?: number): Record<string, unknown> => ({ id, title: id, passes: false, ...(issue ? { issue } : {}) });
    const shapes: Record<string, unknown> = {
      userStories: { userStories: [story('A', 1), story('B')] },
      'another key': { stories: [story('A', 1), story('B')] },
      wrapper: { prd: { name: 'x', stories: [story('A', 1), story('B')] } },
      'bare array': [story('A', 1), story('B')],
      phases: { phases: [{ name: 'one', stories: [story('A', 1)] }, { name: 'two', stories: [story('B'), story('C', 3)] }] },
    };
    for (const [name, data] of Object.entries(shapes)) {
      const text = JSON.stringify(data, null, 2);
      const doc = analyzePrd(text).doc;
      const byId = Object.fromEntries(doc.stories.map((s) => [s.id, s.issue]));
      assert.equal(byId.A, 1, `${name}: ${JSON.stringify(byId)}`);
      assert.equal(byId.B, undefined, name);
      if (name === 'phases') {
        assert.equal(byId.C, 3, 'a story of the second phase');
      }
    }
  });
});

describe('the prompt gets the story issue\'s plan', () => {
  it('planSources prefers the linked plan, and the section has the plan path, its head and the research path', () => {
    const issue = issueArtifacts({
      number: 42,
      title: 'Task priorities',
      comments: [c(`## Implementation Plan\n\n${blob('thoughts/shared/plans/linked.md')}`)],
      disk: [
        { kind: 'research', path: 'thoughts/shared/research/r-GH-42.md' },
        { kind: 'plan', path: 'thoughts/shared/plans/other-GH-42.md' },
      ],
      repo,
      isLocalFile: () => true,
    });
    const src = planSources([issue]);
    assert.deepEqual([src?.planPath, src?.researchPath], ['thoughts/shared/plans/linked.md', 'thoughts/shared/research/r-GH-42.md']);
    const section = issuePlanSection({ issue: 42, title: 'Task priorities', planPath: src!.planPath, planHead: '# Plan\nPhase 1\n', planTruncated: true, researchPath: src!.researchPath });
    assert.match(section, /^## GitHub issue #42 — Task priorities/);
    assert.match(section, /Implementation plan: `thoughts\/shared\/plans\/linked.md`/);
    assert.match(section, /Research document: `thoughts\/shared\/research\/r-GH-42.md`/);
    assert.match(section, /````markdown\n# Plan\nPhase 1\n````/);
    assert.equal(planSources([{ ...issue, artifacts: issue.artifacts.filter((a) => a.kind !== 'plan') }]), undefined);
  });

  it('buildPrompt appends the section to the context only when there is a plan', () => {
    const prd = analyzePrd(JSON.stringify({ userStories: [{ id: 'US-1', title: 'T', priority: 1, passes: false, description: 'd', acceptanceCriteria: ['a'] }] }));
    const without = buildPrompt({ prd, storyId: 'US-1' });
    assert.doesNotMatch(without, /GitHub issue/);
    const withPlan = buildPrompt({ prd, storyId: 'US-1', issuePlan: { issue: 7, planPath: 'thoughts/shared/plans/p.md', planHead: 'PLAN HEAD', planTruncated: false } });
    assert.match(withPlan, /## GitHub issue #7[\s\S]*PLAN HEAD/);
  });
});
