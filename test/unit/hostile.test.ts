/**
 * Regression tests for hostile prd.json files (issue 8 items 3–5 and the id rules of item 1): deep
 * nesting, long cycles, many unknown ids, control characters and option-like ids.
 */
import assert from 'node:assert/strict';
import { type AnalysisStep, analyzePrdForReadiness } from '../../src/core/prd/index';
import { analyze, cli, makePrd, problemsOf, type StoryInput } from './helpers';

function ring(n: number): string {
  const stories = [];
  for (let i = 0; i < n; i++) {
    stories.push({ id: `S${i}`, blockedBy: [`S${(i + n - 1) % n}`] });
  }
  return makePrd(stories);
}

describe('hostile prd.json files', () => {
  describe('deep nesting (issue 8 item 3)', () => {
    for (const [name, text] of [
      ['10,000 nested arrays', `${'['.repeat(10_000)}${']'.repeat(10_000)}`],
      ['10,000 nested objects inside a story', `{"userStories": [{"id": "A", "x": ${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}]}`],
      ['unterminated nesting', '['.repeat(20_000)],
    ] as const) {
      it(`${name}: a located problem, no exception (validate and next)`, () => {
        const a = analyze(text);
        assert.ok(a.problems.length > 0);
        for (const p of a.problems) {
          assert.ok(p.range.offset >= 0 && p.range.offset + p.range.length <= text.length, JSON.stringify(p.range));
        }
        for (const command of ['validate', 'next']) {
          const r = cli([command, '--json'], { 'prd.json': text });
          assert.equal(r.code, 1, `${command}: ${r.stderr.slice(0, 300)}`);
          const out = JSON.parse(r.stdout) as { problems: { code: string; line: number }[] };
          assert.ok(out.problems.length > 0);
        }
      });
    }

    it('says where the nesting gets too deep', () => {
      const text = `{"userStories": [{"id": "A", "x": ${'['.repeat(5000)}${']'.repeat(5000)}}]}`;
      const [p] = problemsOf(analyze(text), 'too-deep');
      assert.ok(p, 'no too-deep problem');
      assert.equal(p.severity, 'error');
      assert.match(p.message, /nested/);
    });
  });

  describe('long cycles (issue 8 item 4)', () => {
    it('one problem per cycle, abbreviated path: output linear in the input', () => {
      const sizes = [500, 2000];
      const bytes = sizes.map((n) => {
        const text = ring(n);
        const r = cli(['validate', '--json'], { 'prd.json': text });
        assert.equal(r.code, 1);
        const problems = (JSON.parse(r.stdout) as { problems: { code: string; message: string }[] }).problems;
        const cycles = problems.filter((p) => p.code === 'cycle');
        assert.equal(cycles.length, 1, 'one problem for the one cycle');
        assert.match(cycles[0].message, new RegExp(`… ${(n - 4).toLocaleString('en-US')} more …`));
        const next = cli(['next', '--json'], { 'prd.json': text });
        return { text: text.length, out: r.stdout.length + next.stdout.length + next.stderr.length };
      });
      // 4× the input may give at most ~4× the output (not 16×).
      const ratio = bytes[1].out / bytes[0].out;
      assert.ok(ratio < 6, `output grew ${ratio.toFixed(1)}× for 4× the input`);
      assert.ok(bytes[1].out < 2 * bytes[1].text, `output ${bytes[1].out} bytes for ${bytes[1].text} bytes of input`);
    });

    it('a short cycle still shows its whole path', () => {
      const a = analyze(makePrd([{ id: 'A', blockedBy: ['C'] }, { id: 'B', blockedBy: ['A'] }, { id: 'C', blockedBy: ['B'] }]));
      const cycles = problemsOf(a, 'cycle');
      assert.equal(cycles.length, 1);
      assert.match(cycles[0].message, /A → B → C → A/);
    });
  });

  describe('unknown ids (issue 8 item 5)', () => {
    it('suggests a near id among 10,000 stories each with an unknown id', () => {
      const stories = [];
      for (let i = 0; i < 10_000; i++) {
        stories.push({ id: `US-${String(i).padStart(5, '0')}`, blockedBy: [`us-${i}x`, `US_${String(i).padStart(5, '0')}`] });
      }
      const a = analyze(makePrd(stories));
      const unknown = problemsOf(a, 'unknown-blocked-by');
      assert.equal(unknown.length, 20_000);
      assert.match(unknown[1].message, /did you mean "US-00000"\?/);
    });

    // `next` and `ready` used to validate such a file twice: once without positions, then again with them.
    for (const [name, stories] of [
      ['an unknown id', [{ id: 'A' }, { id: 'B', blockedBy: ['GHOST'] }]],
      ['a duplicate id', [{ id: 'A' }, { id: 'A' }]],
      ['a dependency on itself', [{ id: 'A', blockedBy: ['A'] }]],
      ['a cycle', [{ id: 'A', blockedBy: ['B'] }, { id: 'B', blockedBy: ['A'] }]],
      ['a warning (no priority)', [{ id: 'A', priority: null }]],
    ] satisfies [string, StoryInput[]][]) {
      it(`next and ready validate a file with ${name} once, with positions`, () => {
        const steps: AnalysisStep[] = [];
        const a = analyzePrdForReadiness(makePrd(stories), { onStep: (s) => steps.push(s) });
        const count = (step: AnalysisStep): number => steps.filter((s) => s === step).length;
        assert.deepEqual([count('validate'), count('located-parse'), count('readiness')], [1, 1, 1], steps.join(', '));
        assert.ok(a.problems.length > 0);
        // The problems are located (not the line 1, column 1 of a pass without positions).
        assert.ok(a.problems.every((p) => p.range.start.line > 0), JSON.stringify(a.problems.map((p) => p.range.start)));
      });
    }

    it('next and ready read a valid file once, without positions', () => {
      const steps: AnalysisStep[] = [];
      const a = analyzePrdForReadiness(makePrd([{ id: 'A' }, { id: 'B', blockedBy: ['A'] }]), { onStep: (s) => steps.push(s) });
      assert.deepEqual(steps.filter((s) => s.endsWith('parse')), ['quick-parse']);
      assert.deepEqual(a.problems, []);
      assert.equal(a.readiness.next?.story.id, 'A');
    });
  });

  describe('ids a terminal or a program could misread (issue 8 item 1)', () => {
    for (const [name, id] of [
      ['a TAB', 'Q\t; touch pwned; echo \\'],
      ['a newline', 'A\nB'],
      ['an ESC', 'A\u001b[2J'],
      ['a DEL', 'A\u007f'],
    ] as const) {
      it(`an id with ${name} is an error`, () => {
        const a = analyze(makePrd([{ id }]));
        const p = a.problems.find((q) => q.severity === 'error');
        assert.ok(p, `no error for ${JSON.stringify(id)}: ${JSON.stringify(a.problems)}`);
        assert.match(p.message, /control character/);
        assert.equal(cli(['validate'], { 'prd.json': makePrd([{ id }]) }).code, 1);
      });
    }

    it('an id starting with "-" gets a warning', () => {
      const a = analyze(makePrd([{ id: '-rf' }]));
      const p = a.problems.find((q) => q.storyId === '-rf');
      assert.ok(p, JSON.stringify(a.problems));
      assert.equal(p.severity, 'warning');
      assert.match(p.message, /starts with "-"/);
    });
  });
});
