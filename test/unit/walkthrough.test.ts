/**
 * The walkthrough (package.json contributes.walkthroughs, issue 18 item 13): every step shows a
 * file that exists, its buttons run commands that exist, and it completes on an event that can
 * happen (a contributed command, view, setting or context key of this extension).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  contributes: {
    commands: { command: string }[];
    views: Record<string, { id: string }[]>;
    configuration: { properties: Record<string, unknown> };
    walkthroughs?: { id: string; title: string; steps: { id: string; title: string; description: string; media: Record<string, string>; completionEvents?: string[] }[] }[];
  };
};
const commands = new Set(pkg.contributes.commands.map((c) => c.command));
const views = new Set(Object.values(pkg.contributes.views).flat().map((v) => v.id));
const settings = new Set(Object.keys(pkg.contributes.configuration.properties));
/** Commands of VS Code itself that a step may offer. */
const builtIn = new Set(['workbench.action.openSettings']);

describe('the walkthrough', () => {
  const walkthrough = pkg.contributes.walkthroughs?.[0];

  it('takes a new user from prd.json to GitHub, in order', () => {
    assert.ok(walkthrough, 'package.json contributes a walkthrough');
    assert.deepEqual(
      walkthrough.steps.map((s) => s.id),
      ['prd', 'stories', 'graph', 'agent', 'run', 'memory', 'github'],
    );
  });

  for (const step of pkg.contributes.walkthroughs?.[0]?.steps ?? []) {
    it(`step "${step.title}": its media exists, its buttons and completion events name real things`, () => {
      for (const file of Object.values(step.media)) {
        if (file.includes('/')) {
          assert.ok(existsSync(path.join(root, file)), `${file} exists`);
        }
      }
      for (const m of step.description.matchAll(/\(command:([\w.]+)/g)) {
        const id = m[1];
        assert.ok(commands.has(id) || builtIn.has(id) || (id.endsWith('.focus') && views.has(id.slice(0, -'.focus'.length))), `the button's command ${id} exists`);
      }
      assert.ok((step.completionEvents ?? []).length > 0, 'the step completes on an event, not when clicked');
      for (const event of step.completionEvents ?? []) {
        const [kind, value] = [event.slice(0, event.indexOf(':')), event.slice(event.indexOf(':') + 1)];
        if (kind === 'onCommand') {
          assert.ok(commands.has(value), `${event}: a contributed command`);
        } else if (kind === 'onView') {
          assert.ok(views.has(value), `${event}: a contributed view`);
        } else if (kind === 'onSettingChanged') {
          assert.ok(settings.has(value), `${event}: a declared setting`);
        } else {
          assert.equal(kind, 'onContext', `${event}: a known kind of event`);
          assert.match(value, /\bralph\.state\b/);
        }
      }
    });
  }
});
