/** Every command package.json declares is registered, and every menu, keybinding and welcome link names a declared one. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, extension } from './helpers';

interface Contributes {
  commands: { command: string }[];
  menus?: Record<string, { command?: string; submenu?: string }[]>;
  keybindings?: { command: string }[];
  viewsWelcome?: { view: string; contents: string }[];
}

suite('commands declared in package.json', () => {
  const contributes = (): Contributes => (extension().packageJSON as { contributes: Contributes }).contributes;

  test('every declared command is registered once the extension is active', async () => {
    await api();
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributes().commands.map((c) => c.command).filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], 'declared in contributes.commands but not registered');
  });

  test('every menu, keybinding and viewsWelcome command link names a declared command', () => {
    const c = contributes();
    const declared = new Set(c.commands.map((x) => x.command));
    const used: { where: string; command: string }[] = [];
    for (const [menu, entries] of Object.entries(c.menus ?? {})) {
      for (const e of entries) {
        if (e.command) {
          used.push({ where: `menus.${menu}`, command: e.command });
        }
      }
    }
    for (const k of c.keybindings ?? []) {
      used.push({ where: 'keybindings', command: k.command });
    }
    for (const w of c.viewsWelcome ?? []) {
      for (const m of w.contents.matchAll(/\(command:([A-Za-z0-9_.-]+)/g)) {
        used.push({ where: `viewsWelcome ${w.view}`, command: m[1] });
      }
    }
    assert.ok(used.length > 10, `found ${used.length} uses`);
    // VS Code's own commands may appear in welcome links; ours must be declared.
    const unknown = used.filter((u) => u.command.startsWith('ralph.') && !declared.has(u.command));
    assert.deepEqual(unknown, []);
  });
});
