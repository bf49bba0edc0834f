/**
 * Comment parsing is bounded (issue 16, item 8) and reads what a person sees (item 7): text from
 * GitHub is read in time proportional to its length, and a URL hidden in an HTML comment, a
 * tag's attribute, a link reference definition or behind a link's text never picks the file.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { listHeadings } from '../../src/core/agentsMd';
import { scanWork } from '../../src/core/artifacts/commentText';
import { parseArtifactComment, selfHealBody, verdictFromDocument } from '../../src/core/artifacts/protocol';
import { blobUrl, mapArtifactUrl } from '../../src/core/artifacts/url';

const blob = (p: string): string => `https://github.com/acme/taskflow/blob/main/${p}`;
const PLAN = blob('thoughts/shared/plans/2026-11-16-GH-0042-p.md');
const EVIL = blob('.env');

function urlOf(body: string): string | undefined {
  const p = parseArtifactComment({ id: 1, body });
  assert.ok(p && 'artifact' in p, `an artifact comment: ${body}`);
  return p.artifact.url;
}

describe('an artifact comment is read as a person sees it', () => {
  it('a URL inside an HTML comment is not the artifact, on the URL line or before it', () => {
    assert.equal(urlOf(`## Implementation Plan\n\n<!-- ${EVIL} -->\n${PLAN}`), PLAN);
    assert.equal(urlOf(`## Implementation Plan\n<!--\n${EVIL}\n-->\n\n${PLAN}`), PLAN);
    assert.equal(urlOf(`## Implementation Plan\n\n<!-- ${EVIL}`), undefined, 'an unclosed comment hides the rest');
  });

  it('a header inside an HTML comment is no header', () => {
    assert.equal(parseArtifactComment({ id: 1, body: `<!--\n## Implementation Plan\n${EVIL}\n-->\nThanks!` }), null);
  });

  it("a link whose text shows a URL counts as the URL shown, never its hidden target", () => {
    assert.equal(urlOf(`## Implementation Plan\n\n[${PLAN}](${EVIL})`), PLAN);
    assert.equal(urlOf(`## Implementation Plan\n\n[see ${PLAN} here](${EVIL})`), PLAN);
    assert.equal(urlOf(`## Implementation Plan\n\n[Plan](${PLAN})`), PLAN, 'a link with a plain text keeps its target');
  });

  it("a tag's attributes and a link reference definition are not read", () => {
    assert.equal(urlOf(`## Implementation Plan\n\n<a href="${EVIL}">the plan</a> ${PLAN}`), PLAN);
    assert.equal(urlOf(`## Implementation Plan\n\n[plan]: ${EVIL}\n${PLAN}`), PLAN);
    assert.equal(urlOf(`## Implementation Plan\n\n<${PLAN}>`), PLAN, 'an autolink is visible');
  });

  it('property: a self-heal body reads back to its URL, percent-encoded names included', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 30 }), (name) => {
        const repo = { owner: 'acme', repo: 'taskflow', host: 'github.com' };
        const path = `thoughts/shared/plans/${name.replace(/[/\\]/g, '_')}.md`;
        const url = urlOf(selfHealBody('plan', blobUrl(repo, 'main', path)));
        const mapped = url === undefined ? undefined : mapArtifactUrl(url, repo);
        assert.equal(mapped?.local ? mapped.path : mapped, path);
      }),
    );
  });
});

/** Characters the scanner looked at to read `body` as a comment and as a review document. */
function work(body: string): number {
  scanWork.chars = 0;
  parseArtifactComment({ id: 1, body });
  verdictFromDocument(body);
  return scanWork.chars;
}

describe('comment parsing is linear', () => {
  // Lines a hostile commenter repeats: runs a backtracking expression tries from every position.
  const units = [' ', ': ', '!', '.', '> ', '<', '<a ', '[', '](', '](https://a', '[https://a ', '<!--', '`', '\t', 'https://a', 'verdict ', '*_', '-', '\n', '\r'];
  const prefixes = ['## Plan Review\n\nverdict', '## Implementation Plan\n\nhttps://a', '## Plan Review\n\n', '', '## Research Document\n\n[x', '> '];

  it('property: the characters looked at grow linearly with the text (counted, not timed)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...prefixes), fc.array(fc.constantFrom(...units), { minLength: 1, maxLength: 3 }), fc.constantFrom('x', '', '\n', ')'), fc.integer({ min: 200, max: 3000 }), (prefix, unitParts, suffix, n) => {
        const unit = unitParts.join('');
        const text = (k: number): string => `${prefix}${unit.repeat(Math.ceil(k / unit.length))}${suffix}`;
        const small = work(text(n));
        const large = work(text(4 * n));
        assert.ok(small <= 40 * text(n).length, `${small} characters looked at for ${text(n).length}`);
        // Linear: about 4 (the constant part makes it a little less); quadratic: about 16.
        assert.ok(large <= 4.5 * small, `${JSON.stringify(prefix)} + ${JSON.stringify(unit)}×n: 4n cost ${(large / small).toFixed(1)}× n`);
      }),
      { numRuns: 600 },
    );
  });

  it('the old 65,000-character hostile comment (a VERDICT line of spaces) and a 1 MB comment are read in linear work', () => {
    const hostile = `## Plan Review\n\nverdict${' '.repeat(65_000)}x`;
    assert.ok(work(hostile) <= 40 * hostile.length);
    const mb = `## Implementation Plan\n\n${'[https://a](https://b) <a x> verdict: '.repeat(30_000)}`;
    assert.ok(work(mb) <= 40 * mb.length);
  });
});

describe('workspace files read without backtracking', () => {
  it('property: AGENTS.md headings read by hand are the headings the old expression found', () => {
    const OLD = /^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
    const piece = fc.constantFrom('#', '##', '###', '#######', ' ', '\t', 'a', 'Title', '#x', ' #', '  ##  ', '`');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 10 }), (parts) => {
        const line = `#${parts.join('')}`;
        const m = OLD.exec(line);
        const got = listHeadings(line);
        assert.deepEqual(got.map((h) => [h.level, h.text]), m ? [[m[1].length, m[2].trim()]] : [], JSON.stringify(line));
      }),
      { numRuns: 2000 },
    );
  });
});
