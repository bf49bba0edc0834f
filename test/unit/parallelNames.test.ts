/**
 * The names of a story's worktree (src/core/parallel/names.ts): the branch rule agrees with
 * `git check-ref-format --branch`, and every sanitised name is one git accepts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import fc from 'fast-check';
import { branchNameProblem, pathSegmentProblem, sanitizeBranchName, storyBranchName } from '../../src/core/parallel/names';

/**
 * What git itself says of each name: one shell runs git once per name (xargs), outside any
 * repository (so `@{-1}` is not looked up); one process per name from Node is too slow here.
 */
function gitAcceptsAll(names: readonly string[]): boolean[] {
  const script = 'for n in "$@"; do git check-ref-format --branch "$n" >/dev/null 2>&1 && echo 1 || echo 0; done';
  const out = spawnSync('xargs', ['-0', 'sh', '-c', script, 'sh'], { cwd: tmpdir(), input: names.map((n) => `${n}\0`).join(''), encoding: 'utf8' });
  const verdicts = out.stdout.trim().split('\n').map((l) => l === '1');
  assert.equal(verdicts.length, names.length, out.stderr);
  return verdicts;
}

// Characters that matter to the rules, and ordinary ones; no NUL (it cannot be an argument).
const units = fc.constantFrom(...'ab.-/@{}~^:?*[\\ lockHEAD\tx1é'.split(''), '\x01', '\x7f', '.lock', '..', '@{', 'HEAD', '//');
const names = fc.array(units, { maxLength: 12 }).map((a) => a.join(''));
/** Many generated names, the same on every run (a failure can be reproduced). */
const SAMPLE = fc.sample(names, { numRuns: 300, seed: 19 });

describe('parallel: worktree branch names', () => {
  it('branchNameProblem agrees with git check-ref-format --branch', () => {
    const verdicts = gitAcceptsAll(SAMPLE);
    SAMPLE.forEach((name, i) => {
      if (name === '@') {
        // git can make a branch named "@", but "@" alone means HEAD wherever git takes a revision
        // (`git checkout @` stays where it is), so a run could never check it out: refused, as
        // the serial preflight always did.
        assert.equal(branchNameProblem(name), 'it is "@"');
        return;
      }
      assert.equal(branchNameProblem(name) === undefined, verdicts[i], `${JSON.stringify(name)}: ${branchNameProblem(name) ?? 'accepted'}`);
    });
  });

  it('every sanitised name is accepted by git, and an accepted name is kept as it is', () => {
    const sanitised = SAMPLE.map(sanitizeBranchName);
    const verdicts = gitAcceptsAll(sanitised);
    SAMPLE.forEach((name, i) => {
      assert.ok(verdicts[i], `${JSON.stringify(name)} -> ${JSON.stringify(sanitised[i])}`);
      assert.equal(sanitizeBranchName(sanitised[i]), sanitised[i]);
    });
  });

  it('a story branch is <branchName>-<storyId>, sanitised', () => {
    assert.equal(storyBranchName('ralph/user-auth', 'US-003'), 'ralph/user-auth-US-003');
    assert.equal(storyBranchName('ralph/x', 'US 4:a'), 'ralph/x-US-4-a');
    assert.equal(storyBranchName('ralph/x..y', 'S.lock'), 'ralph/x.y-S-lock');
  });

  it('a story id that is not a valid path segment is named with the reason', () => {
    assert.equal(pathSegmentProblem('US-001'), undefined);
    assert.match(pathSegmentProblem('a/b') ?? '', /contains "\/"/);
    assert.match(pathSegmentProblem('..') ?? '', /names a folder/);
    assert.match(pathSegmentProblem('') ?? '', /empty/);
    assert.match(pathSegmentProblem('x.') ?? '', /ends with/);
    assert.match(pathSegmentProblem('NUL') ?? '', /device name/);
  });
});
