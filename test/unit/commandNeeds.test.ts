/**
 * One command pipeline (issue 17, item 3): every command package.json declares has its needs in
 * src/commands/needs.ts, which the registrar reads to refuse it in Restricted Mode. Checked
 * against a list written here, and against package.json's `enablement`, which greys out the same
 * commands in an untrusted workspace.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { COMMAND_NEEDS, type CommandNeeds, refusal } from '../../src/commands/needs';

interface Contributed {
  readonly command: string;
  readonly enablement?: string;
}

const contributed = (JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { contributes: { commands: Contributed[] } }).contributes.commands;

/** Commands that write workspace files (prd.json, progress.txt, AGENTS.md, the Pin, .ralph/). */
const WRITES = [
  'ralph.createPrd',
  'ralph.importStories',
  'ralph.story.markPassing',
  'ralph.story.markNotPassing',
  'ralph.removeBlockedBy',
  'ralph.breakCycle',
  'ralph.runNext',
  'ralph.story.run',
  'ralph.startLoop',
  'ralph.memory.addPattern',
  'ralph.memory.addLearning',
  'ralph.memory.newEntry',
  'ralph.memory.compact',
  'ralph.memory.undoCompaction',
  'ralph.agents.addNote',
  'ralph.pin.generate',
  'ralph.parallel.runWave',
  'ralph.parallel.startLoop',
  'ralph.needsYou.retry',
  'ralph.needsYou.openConflict',
  'ralph.parallel.resume',
  'ralph.needsYou.removeWorktree',
  'ralph.github.addWorkflow',
  'ralph.github.sync',
  'ralph.resumeNow',
];
/** Commands that start an agent or git. */
const RUNS = ['ralph.runNext', 'ralph.story.run', 'ralph.startLoop', 'ralph.pin.generate', 'ralph.parallel.runWave', 'ralph.parallel.startLoop', 'ralph.needsYou.retry', 'ralph.needsYou.openConflict', 'ralph.parallel.resume', 'ralph.parallel.checkInterrupted', 'ralph.needsYou.removeWorktree', 'ralph.github.sync', 'ralph.resumeNow'];
/** Commands that post to GitHub. */
const POSTS = ['ralph.github.selfHeal', 'ralph.github.selfHealAll', 'ralph.github.linkToIssue', 'ralph.github.publishStories', 'ralph.github.dispatch', 'ralph.github.openSignatureIssue'];

/** Commands run by the views' items (a problem's link), not offered to a person: not in package.json. */
const INTERNAL = ['ralph.openProblem'];

const needsOf = (id: string): CommandNeeds | undefined => (COMMAND_NEEDS as Record<string, CommandNeeds>)[id];

describe('the declared needs of every command (issue 17, item 3)', () => {
  it('every command of package.json has its needs declared, and no other command but the internal ones', () => {
    assert.deepEqual(Object.keys(COMMAND_NEEDS).sort(), [...contributed.map((c) => c.command), ...INTERNAL].sort());
  });

  it('what writes files, runs an agent or git, or posts to GitHub declares it; nothing else does', () => {
    for (const command of Object.keys(COMMAND_NEEDS)) {
      const needs = needsOf(command) ?? {};
      assert.deepEqual(
        { writes: needs.writes === true, runs: needs.runs === true, posts: needs.posts === true },
        { writes: WRITES.includes(command), runs: RUNS.includes(command), posts: POSTS.includes(command) },
        command,
      );
    }
  });

  it('a command refused in Restricted Mode is exactly one package.json greys out there', () => {
    for (const { command, enablement } of contributed) {
      const greyed = /\bisWorkspaceTrusted\b/.test(enablement ?? '');
      assert.equal(refusal(needsOf(command) ?? {}) !== undefined, greyed, `${command}: enablement "${enablement ?? ''}"`);
    }
  });

  it('each refusal says what was refused, with the words users saw before the registrar', () => {
    for (const id of [...WRITES, ...RUNS]) {
      const r = refusal(needsOf(id) ?? {});
      assert.equal(r?.severity, 'error', id);
      assert.match(r?.message ?? '', /^[A-Z].* needs a trusted workspace: this folder is open in Restricted Mode\. Use "Manage Workspace Trust" to trust it\.$/, id);
      assert.doesNotMatch(r?.message ?? '', /^This command/, `${id} names its action`);
    }
    assert.equal(refusal(COMMAND_NEEDS['ralph.story.markPassing'])?.message.startsWith('Mark as Passing needs a trusted workspace'), true);
    for (const id of POSTS) {
      assert.deepEqual(refusal(needsOf(id) ?? {}), { severity: 'warning', message: 'Ralph posts to GitHub only in a trusted workspace.' }, id);
    }
    assert.equal(refusal(COMMAND_NEEDS['ralph.previewPrompt']), undefined, 'reading is never refused');
  });
});
