import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { ageOf, cachedIssueOf, cacheKey, MAX_CACHED_COMMENTS, parseCommentCache } from '../../src/core/artifacts/commentCache';
import { issueArtifacts } from '../../src/core/artifacts/issueArtifacts';
import type { IssueComment } from '../../src/core/artifacts/protocol';

const repo = { owner: 'acme', repo: 'taskflow', host: 'github.com' };
const RESEARCH = 'thoughts/shared/research/2026-11-15-GH-0042-task-priorities.md';
const comment = (id: number, body: string): IssueComment => ({
  id,
  body,
  created_at: '2026-11-16T10:00:00Z',
  html_url: `https://github.com/acme/taskflow/issues/42#issuecomment-${id}`,
  user: { login: 'lead' },
  author_association: 'OWNER',
});

describe('the offline comment cache (issue 18 item 7)', () => {
  const fetched = new Date('2026-11-25T21:00:00Z');

  it('keeps only the comments that link a document, and what reads them back as linked', () => {
    const comments = [comment(1, 'Looks good, ship it.'), comment(2, `## Research Document\n\nhttps://github.com/acme/taskflow/blob/main/${RESEARCH}\n\nKey findings.`)];
    const kept = cachedIssueOf({ title: 'Task priorities', state: 'open', labels: ['ralph'] }, comments, fetched);
    assert.deepEqual(kept.comments.map((c) => c.id), [2]);
    assert.equal(kept.fetchedAt, '2026-11-25T21:00:00.000Z');
    const stored = parseCommentCache(JSON.parse(JSON.stringify({ [cacheKey(repo, 42)]: kept })));
    const read = issueArtifacts({ number: 42, comments: stored[cacheKey(repo, 42)].comments, disk: [], repo, isLocalFile: (p) => p === RESEARCH });
    assert.deepEqual(read.artifacts[0], { ...read.artifacts[0], kind: 'research', status: 'linked', path: RESEARCH });
  });

  it(`keeps at most ${MAX_CACHED_COMMENTS} artifact comments per issue, the newest`, () => {
    const many = Array.from({ length: MAX_CACHED_COMMENTS + 5 }, (_, i) => comment(i + 1, `## Research Document\n\nhttps://github.com/acme/taskflow/blob/main/${RESEARCH}`));
    const kept = cachedIssueOf({}, many, fetched);
    assert.equal(kept.comments.length, MAX_CACHED_COMMENTS);
    assert.equal(kept.comments.at(-1)?.id, MAX_CACHED_COMMENTS + 5);
  });

  it('a damaged store reads as no cache for the damaged entries, never a crash', () => {
    fc.assert(
      fc.property(fc.anything(), (stored) => {
        const out = parseCommentCache(stored);
        assert.equal(typeof out, 'object');
      }),
    );
    assert.deepEqual(parseCommentCache({ a: { fetchedAt: 'yesterday', labels: [], comments: [] }, b: 3 }), {});
  });

  it('says the age in words', () => {
    const now = new Date('2026-11-25T21:00:00Z');
    assert.equal(ageOf('2026-11-25T20:59:30Z', now), 'just now');
    assert.equal(ageOf('2026-11-25T20:55:00Z', now), '5 min ago');
    assert.equal(ageOf('2026-11-25T18:00:00Z', now), '3 h ago');
    assert.equal(ageOf('2026-11-22T21:00:00Z', now), '3 days ago');
    assert.equal(ageOf('not a time', now), 'at an unknown time');
  });
});
