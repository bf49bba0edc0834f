/** The iteration prompt: default instructions, context sections, user templates, file names, and the CLI `context` command. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { buildPrompt, DEFAULT_PROMPT_TEMPLATE, promptFileName, PromptError, sanitizeFileComponent, storyWords, unknownPromptPlaceholders } from '../../src/core/context/prompt';
import { analyzePrd } from '../../src/core/prd/index';
import { cli, cliAsync, makePrd } from './helpers';

const demoDir = path.join(__dirname, '..', '..', 'examples', 'demo');
const demo = (p: string): string => readFileSync(path.join(demoDir, p), 'utf8');
const demoInput = (storyId: string) => ({
  prd: analyzePrd(demo('prd.json')),
  storyId,
  progressText: demo('progress.txt'),
  pinText: demo('specs/INDEX.md'),
  readFile: (p: string) => demo(p),
});

/** The text of a `## heading` section of the prompt, up to the next `## ` heading outside fences. */
function section(prompt: string, heading: string): string {
  const lines = prompt.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`## ${heading}`));
  assert.ok(start >= 0, `no section ${heading}`);
  let fence = false;
  let end = start + 1;
  for (; end < lines.length; end++) {
    if (/^(`{3,}|~{3,})/.test(lines[end])) {
      fence = !fence;
    }
    if (!fence && lines[end].startsWith('## ')) {
      break;
    }
  }
  return lines.slice(start, end).join('\n');
}

describe('buildPrompt', () => {
  it('gives the Ralph instructions for exactly one story', () => {
    const p = buildPrompt(demoInput('US-006'));
    assert.ok(p.startsWith('# Ralph iteration: US-006 — Sort tasks by priority\n'));
    assert.match(p, /Work on exactly ONE story: \*\*US-006\*\*/);
    assert.match(p, /the message `feat: US-006 - Sort tasks by priority`/);
    assert.match(p, /set `"passes": true` for US-006 in `prd\.json`/);
    assert.match(p, /append an entry to `progress\.txt`/);
    assert.match(p, /nearest AGENTS\.md/);
    assert.match(p, /typecheck, lint and tests/);
    assert.match(p, /Only if every story in `prd\.json` now has `"passes": true`, print\n {3}<promise>COMPLETE<\/promise> on a line of its own/);
    assert.match(p, /^## YYYY-MM-DD HH:MM - US-006$/m);
    assert.match(p, /^\*\*Learnings for future iterations:\*\*$|- \*\*Learnings for future iterations:\*\*/m);
  });

  it('includes the story, its criteria as a checklist, and the stories it depended on', () => {
    const p = buildPrompt(demoInput('US-007'));
    const story = section(p, 'Story');
    assert.match(story, /^Story ID: US-007$/m);
    assert.match(story, /^Title: Bulk-change priority of selected tasks$/m);
    assert.match(story, /^Priority: 7$/m);
    assert.match(story, /Status: blocked — still waits on US-006/);
    assert.match(story, /As a user, I want to set the priority of many tasks at once\./);
    assert.equal(
      section(p, 'Acceptance criteria'),
      '## Acceptance criteria\n\n- [ ] Multi-select shows a "Set priority" action\n- [ ] One API call per batch, not per task\n- [ ] Undo toast restores the previous priorities\n',
    );
    const deps = section(p, 'Depends on');
    assert.match(deps, /^- US-004 — Priority selector in the task edit dialog \(passes\)$/m);
    assert.match(deps, /^- US-006 — Sort tasks by priority \(does not pass yet\)$/m);
    const notes = section(buildPrompt(demoInput('US-005')), 'Story');
    assert.match(notes, /### Notes\n\nReuse the FilterBar component from the status filter\./);
  });

  it('includes the Codebase Patterns and the most recent progress entries', () => {
    const p = buildPrompt(demoInput('US-006'));
    const patterns = section(p, 'Codebase Patterns');
    assert.match(patterns, /^- Priority values live only in `src\/shared\/priority\.ts`/m);
    assert.match(patterns, /^- Quality gate per story: `npm run typecheck && npm test`/m);
    const recent = section(p, 'Recent progress');
    assert.match(recent, /the last 3 entries of progress\.txt/);
    assert.deepEqual(
      [...recent.matchAll(/^## (\S+ \S+) - (US-\d+)$/gm)].map((m) => m[2]),
      ['US-003', 'US-004', 'US-004'],
    );
    assert.doesNotMatch(recent, /US-001/);
    const one = buildPrompt({ ...demoInput('US-006'), recentEntries: 1 });
    assert.match(section(one, 'Recent progress'), /the last entry of progress\.txt/);
  });

  it('includes the Pin entries matching the story, with the first 100 lines of their specs', () => {
    const p = buildPrompt(demoInput('US-008'));
    const pin = section(p, 'Related modules');
    assert.match(pin, /^### Notifications$/m);
    assert.match(pin, /^Files: src\/api\/notifications\.ts, db\/migrations\/001_create_users_and_projects\.sql$/m);
    assert.match(pin, /^#### specs\/notifications\.md/m);
    assert.ok(pin.includes(demo('specs/notifications.md').split('\n')[0]));
    assert.doesNotMatch(pin, /^### Dashboard$/m);

    const long = Array.from({ length: 250 }, (_, i) => `line ${i + 1}`).join('\n');
    const q = buildPrompt({ ...demoInput('US-008'), readFile: (f) => (f === 'specs/notifications.md' ? long : demo(f)) });
    assert.match(q, /#### specs\/notifications\.md \(first 100 of 250 lines\)/);
    assert.match(q, /^line 100$/m);
    assert.doesNotMatch(q, /^line 101$/m);
  });

  it('notes a missing spec instead of failing, and copes with no progress.txt and no Pin', () => {
    const p = buildPrompt({ ...demoInput('US-006'), readFile: () => undefined });
    assert.match(p, /> The spec specs\/priority-model\.md is listed in the Pin but could not be read \(missing file\)\./);
    const throwing = buildPrompt({
      ...demoInput('US-006'),
      readFile: () => {
        throw new Error('ENOENT');
      },
    });
    assert.match(throwing, /could not be read/);
    const bare = buildPrompt({ prd: analyzePrd(demo('prd.json')), storyId: 'US-006' });
    assert.match(bare, /progress\.txt does not exist yet/);
    assert.match(bare, /No progress entries yet/);
    assert.match(bare, /There is no specs\/INDEX\.md in this workspace/);
    const noMatch = buildPrompt({ prd: analyzePrd(makePrd([{ id: 'X', title: 'Zebra', description: 'Quux' }])), storyId: 'X', pinText: demo('specs/INDEX.md') });
    assert.match(noMatch, /No entry of specs\/INDEX\.md matches this story's words/);
  });

  it('uses the file names it is given', () => {
    const p = buildPrompt({ ...demoInput('US-006'), files: { prd: 'scripts/ralph/prd.json', progress: 'scripts/ralph/progress.txt', pin: 'docs/PIN.md' } });
    assert.match(p, /set `"passes": true` for US-006 in `scripts\/ralph\/prd\.json`/);
    assert.match(p, /## Codebase Patterns \(from scripts\/ralph\/progress\.txt\)/);
    assert.match(p, /## Related modules \(from the Pin, docs\/PIN\.md\)/);
  });

  it('throws a clear PromptError for an unknown story or an unreadable prd.json', () => {
    assert.throws(() => buildPrompt(demoInput('US-404')), (e: Error) => e instanceof PromptError && /No story with id "US-404" in prd\.json\. Known ids: US-001, US-002/.test(e.message));
    assert.throws(() => buildPrompt({ prd: analyzePrd('{ nope'), storyId: 'US-1' }), /prd\.json cannot be read as a list of stories: JSON syntax error/);
  });

  it('fills a user template: sections where it places them, all of them when it places none', () => {
    const placed = buildPrompt({ ...demoInput('US-006'), template: 'Do {{ storyId }} ({{storyTitle}}) on {{branchName}}.\n\n{{acceptanceCriteria}}\n\nCommit as {{commitMessage}}. {{unknownThing}}' });
    assert.equal(
      placed,
      'Do US-006 (Sort tasks by priority) on ralph/task-priority.\n\n## Acceptance criteria\n\n- [ ] Sort option "Priority" in the sort menu\n- [ ] High before medium before low, then by due date\n- [ ] Sort order persists per user\n\nCommit as feat: US-006 - Sort tasks by priority. {{unknownThing}}\n',
    );
    const plain = buildPrompt({ ...demoInput('US-006'), template: 'House rules: implement {{storyId}} only.' });
    assert.ok(plain.startsWith('House rules: implement US-006 only.\n\n## Story\n\nStory ID: US-006\n'));
    for (const h of ['Acceptance criteria', 'Depends on', 'Codebase Patterns', 'Recent progress', 'Related modules']) {
      assert.ok(plain.includes(`\n## ${h}`), h);
    }
    assert.deepEqual(unknownPromptPlaceholders('{{story}} {{pin}} {{storyid}} {{ x }}'), ['storyid', 'x']);
    assert.deepEqual(unknownPromptPlaceholders(DEFAULT_PROMPT_TEMPLATE), []);
  });

  it('substitutes once: story text that looks like a placeholder stays literal', () => {
    const prd = analyzePrd(makePrd([{ id: 'A', title: 'Title {{pin}}', description: 'See {{storyId}} and ${HOME} and $(rm -rf ~)' }]));
    const p = buildPrompt({ prd, storyId: 'A', template: '{{story}}' });
    assert.match(p, /Title: Title \{\{pin\}\}/);
    assert.match(p, /See \{\{storyId\}\} and \$\{HOME\} and \$\(rm -rf ~\)/);
  });

  it('fences progress and specs so their headings and backticks cannot break the prompt', () => {
    const progress = '# Ralph Progress Log\n---\n\n## 2026-01-01 10:00 - A\n- used ```` four ticks\n---\n';
    const p = buildPrompt({ prd: analyzePrd(makePrd([{ id: 'A' }])), storyId: 'A', progressText: progress });
    assert.match(p, /^`{5}\n## 2026-01-01 10:00 - A\n- used ```` four ticks\n---\n`{5}$/m);
  });

  it('matches the Pin on the title, description and notes', () => {
    assert.equal(storyWords({ title: 'T', description: 'D', notes: 'N' }), 'T D N');
  });
});

describe('promptFileName', function () {
  this.timeout(20000);

  it('is YYYYMMDD-HHMMSS-<id>.md', () => {
    assert.equal(promptFileName(new Date(2026, 10, 20, 9, 5, 7), 'US-006'), '20261120-090507-US-006.md');
  });

  it('sanitises slashes, dots, metacharacters and length', () => {
    const d = new Date(2026, 0, 1, 0, 0, 0);
    const cases: [string, string][] = [
      ['a/b$(x)', 'a_b_x'],
      ['US-1; rm -rf ~', 'US-1_rm_-rf'],
      ['../../etc/passwd', 'etc_passwd'],
      ['..', 'story'],
      ['', 'story'],
      ['-rf', 'rf'],
      ['C:\\Windows\\x', 'C_Windows_x'],
      ['Ünïcödé ✓', 'Unicode'],
    ];
    for (const [id, want] of cases) {
      assert.equal(promptFileName(d, id), `20260101-000000-${want}.md`, id);
    }
    assert.equal(sanitizeFileComponent('x'.repeat(200)).length, 64);
    const taken = new Set(['20260101-000000-A.md', '20260101-000000-A-2.md']);
    assert.equal(promptFileName(d, 'A', (n) => taken.has(n)), '20260101-000000-A-3.md');
  });

  it('always gives one safe file name (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.date({ min: new Date(2000, 0, 1), max: new Date(2099, 11, 31), noInvalidDate: true }), (id, date) => {
        const name = promptFileName(date, id);
        assert.match(name, /^\d{8}-\d{6}-[A-Za-z0-9][A-Za-z0-9._-]{0,63}\.md$/);
        assert.ok(!name.includes('..'));
      }),
      { numRuns: 300 },
    );
  });
});

describe('CLI context', () => {
  const files = {
    'prd.json': demo('prd.json'),
    'progress.txt': demo('progress.txt'),
    'specs/INDEX.md': demo('specs/INDEX.md'),
    'specs/priority-model.md': demo('specs/priority-model.md'),
    'specs/notifications.md': demo('specs/notifications.md'),
  };
  const made: string[] = [];
  /** A temporary folder with these files (the CLI reads workspace files from disk); returns its path. */
  const onDisk = (tree: Record<string, string>): string => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ralph-context-'));
    made.push(dir);
    for (const [rel, text] of Object.entries(tree)) {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), text);
    }
    return dir;
  };
  after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('prints the prompt the agent would get', () => {
    const dir = onDisk(files);
    const r = cli(['context', 'US-006', '--prd', path.join(dir, 'prd.json')], 'disk');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, buildPrompt({ ...demoInput('US-006'), files: { prd: 'prd.json', progress: 'progress.txt', pin: 'specs/INDEX.md' } }));
  });

  it('reads files next to --prd, and the options it is given', async () => {
    const dir = onDisk(Object.fromEntries(Object.entries(files).map(([k, v]) => [path.join('ws', k), v])));
    // US-008 names a GitHub issue in the demo: offline, its plan section says it was not read
    const r = await cliAsync(['--prd', path.join(dir, 'ws/prd.json'), 'context', 'US-008', '--offline'], 'disk');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^#### specs\/notifications\.md/m);
    assert.match(r.stdout, /## Codebase Patterns \(from progress\.txt\)/);
    const t = cli(['context', 'US-006', '--prd', path.join(dir, 'ws/prd.json'), '--template', path.join(dir, 'T.md'), '--recent=0'], { [path.join(dir, 'ws/prd.json')]: demo('prd.json'), [path.join(dir, 'T.md')]: 'Only {{storyId}}: {{recentProgress}}' });
    assert.equal(t.stdout, 'Only US-006: ## Recent progress\n\nNot included.\n');
    const ralph = onDisk(Object.fromEntries(Object.entries(files).map(([k, v]) => [k.startsWith('specs') ? k : path.join('scripts/ralph', k), v])));
    const s = cli(['context', 'US-006', '--prd', path.join(ralph, 'scripts/ralph/prd.json')], 'disk');
    assert.equal(s.code, 0, s.stderr);
    assert.match(s.stdout, /in `scripts\/ralph\/prd\.json`/);
    assert.match(s.stdout, /^#### specs\/priority-model\.md/m);
  });

  it('leaves out default files that do not exist', () => {
    const dir = onDisk({ 'prd.json': demo('prd.json') });
    const r = cli(['context', 'US-006', '--prd', path.join(dir, 'prd.json')], 'disk');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /progress\.txt does not exist yet/);
  });

  it('never reads a spec link outside the workspace (../, a committed symlink) and stops at /dev/zero at once', () => {
    const base = mkdtempSync(path.join(tmpdir(), 'ralph-outside-'));
    made.push(base);
    mkdirSync(path.join(base, 'outside'));
    writeFileSync(path.join(base, 'outside', 'secret.txt'), 'TOP-SECRET-TOKEN\n');
    const ws = path.join(base, 'ws');
    mkdirSync(path.join(ws, 'specs'), { recursive: true });
    writeFileSync(path.join(ws, 'prd.json'), demo('prd.json'));
    symlinkSync(path.join(base, 'outside', 'secret.txt'), path.join(ws, 'specs', 'linked.md'));
    const depth = ws.split(path.sep).length + 2;
    const pin = (spec: string): string => `# Pin\n\n## Priority model\nKeywords: priority, sort, tasks\nSpec: ${spec}\n`;
    for (const spec of ['../outside/secret.txt', '../../outside/secret.txt', 'specs/linked.md', `${'../'.repeat(depth)}${base.slice(1)}/outside/secret.txt`]) {
      writeFileSync(path.join(ws, 'specs', 'INDEX.md'), pin(spec));
      const r = cli(['context', 'US-006', '--prd', path.join(ws, 'prd.json')], 'disk');
      assert.equal(r.code, 0, r.stderr);
      assert.ok(!r.stdout.includes('TOP-SECRET-TOKEN'), `${spec}: the secret reached the prompt`);
      assert.match(r.stdout, new RegExp(`The spec ${spec.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is listed in the Pin but was not read: .*outside the workspace folder`), spec);
    }
    writeFileSync(path.join(ws, 'specs', 'INDEX.md'), pin(`${'../'.repeat(depth)}dev/zero`));
    const t0 = performance.now();
    const z = cli(['context', 'US-006', '--prd', path.join(ws, 'prd.json')], 'disk');
    assert.ok(performance.now() - t0 < 5000, 'finishes fast');
    assert.equal(z.code, 0, z.stderr);
    assert.match(z.stdout, /is listed in the Pin but was not read: .*outside the workspace folder/);
    // A device inside the workspace (a symlink to /dev/zero) is not a regular file.
    symlinkSync('/dev/zero', path.join(ws, 'specs', 'zero.md'));
    writeFileSync(path.join(ws, 'specs', 'INDEX.md'), pin('specs/zero.md'));
    const d = cli(['context', 'US-006', '--prd', path.join(ws, 'prd.json')], 'disk');
    assert.equal(d.code, 0, d.stderr);
    assert.ok(d.stdout.length < 100_000);
    assert.match(d.stdout, /specs\/zero\.md is listed in the Pin but was not read/);
    // A long spec contributes at most 100 lines and 64 KB.
    writeFileSync(path.join(ws, 'specs', 'big.md'), `${'x'.repeat(200_000)}\n`.repeat(3));
    writeFileSync(path.join(ws, 'specs', 'INDEX.md'), pin('specs/big.md'));
    const big = cli(['context', 'US-006', '--prd', path.join(ws, 'prd.json')], 'disk');
    assert.ok(big.stdout.length < 70_000 + 10_000, `${big.stdout.length} chars`);
  });

  it('exits 1 with a clear message for an unknown story, an unreadable prd.json, or a missing named file', () => {
    const dir = onDisk(files);
    const unknown = cli(['context', 'US-404', '--prd', path.join(dir, 'prd.json')], 'disk');
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stdout, '');
    assert.match(unknown.stderr, /^ralph-workbench: No story with id "US-404" in prd\.json\./);
    const missing = cli(['context', 'US-006', '--prd', 'nope.json'], files);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'ralph-workbench: cannot read nope.json: no such file\n');
    const invalid = cli(['context', 'US-006', '--prd', path.join(onDisk({ 'prd.json': '{"userStories": ' }), 'prd.json')], 'disk');
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /prd\.json cannot be read as a list of stories/);
    const noPin = cli(['context', 'US-006', '--prd', path.join(dir, 'prd.json'), '--pin', 'PIN.md'], 'disk');
    assert.equal(noPin.code, 1);
    assert.equal(noPin.stderr, 'ralph-workbench: cannot read Pin PIN.md: no such file\n');
    assert.equal(cli(['context'], files).code, 1);
    assert.match(cli(['context'], files).stderr, /context needs a story id/);
    assert.match(cli(['context', 'A', 'B'], files).stderr, /unexpected argument B/);
    assert.match(cli(['context', 'A', '--bogus'], files).stderr, /unknown option --bogus/);
    assert.match(cli(['context', 'A', '--recent', 'x'], files).stderr, /--recent needs a whole number/);
    const help = cli(['context', '--help'], files);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: ralph-workbench context <storyId>/);
  });

  it('keeps the other commands as they were', () => {
    assert.equal(cli(['next'], files).stdout, 'US-006 - Sort tasks by priority (priority 5)\n');
    assert.match(cli(['--help']).stdout, /context {4}Print the prompt the agent would get/);
    assert.equal(cli(['bogus']).code, 1);
  });
});
