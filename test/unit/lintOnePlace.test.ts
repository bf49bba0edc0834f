/**
 * The lint keeps the command pipeline in one place (issue 17, item 3): `registerCommand` is named
 * only in the registrar, `workspace.isTrusted` read only in src/services/trust.ts. Each case is
 * linted with the project's own eslint.config.mjs, as `npm run lint` does, at a path in src/.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';

const root = path.join(__dirname, '../..');
const RULE = 'seams/one-place';

describe('lint: one registrar, one trust module (issue 17, item 3)', function () {
  this.timeout(60_000);
  let eslint: ESLint;

  before(() => {
    eslint = new ESLint({ cwd: root });
  });

  /** The messages of the rule for `code` linted as the file `file` (relative to the repository). */
  async function problems(file: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
    const fatal = result.messages.filter((m) => m.fatal);
    assert.deepEqual(fatal, [], 'the case parses');
    return result.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
  }

  const violations: [string, string, RegExp][] = [
    ['src/views/taskGraph/taskGraphViews.ts', "import * as vscode from 'vscode';\nexport const d = vscode.commands.registerCommand('ralph.x', () => 1);\n", /registered only through commandRegistrar/],
    ['src/commands/githubCommands.ts', "import { commands } from 'vscode';\nexport const d = commands.registerCommand('ralph.x', () => 1);\n", /src\/commands\/registrar\.ts/],
    ['src/extension.ts', "import * as vscode from 'vscode';\nconst { registerCommand } = vscode.commands;\nexport const d = registerCommand('ralph.x', () => 1);\n", /commandRegistrar/],
    ['src/util/x.ts', "import * as vscode from 'vscode';\nexport const d = vscode.commands['registerCommand']('ralph.x', () => 1);\n", /commandRegistrar/],
    ['src/commands/githubCommands.ts', "import * as vscode from 'vscode';\nexport const t = (): boolean => vscode.workspace.isTrusted;\n", /read only in src\/services\/trust\.ts/],
    ['src/views/statusBar.ts', "import { workspace } from 'vscode';\nexport const t = (): boolean => workspace.isTrusted;\n", /isTrusted\(\)/],
    ['src/services/runner.ts', "import * as vscode from 'vscode';\nconst { isTrusted } = vscode.workspace;\nexport const t = isTrusted;\n", /src\/services\/trust\.ts/],
  ];
  for (const [file, code, message] of violations) {
    it(`fails on ${code.split('\n')[1]} in ${file}`, async () => {
      const found = await problems(file, code);
      assert.equal(found.length >= 1, true, `no ${RULE} problem for:\n${code}`);
      assert.match(found[0], message);
    });
  }

  it('allows them in their one module, and leaves other isTrusted alone (a MarkdownString)', async () => {
    assert.deepEqual(await problems('src/commands/registrar.ts', "import * as vscode from 'vscode';\nexport const d = vscode.commands.registerCommand('ralph.x', () => 1);\n"), []);
    assert.deepEqual(await problems('src/services/trust.ts', "import * as vscode from 'vscode';\nexport const t = (): boolean => vscode.workspace.isTrusted;\n"), []);
    assert.deepEqual(await problems('src/views/issuesTree.ts', "import * as vscode from 'vscode';\nconst tip = new vscode.MarkdownString('x');\ntip.isTrusted = false;\nexport { tip };\n"), []);
    assert.deepEqual(await problems('src/commands/runCommands.ts', "import * as vscode from 'vscode';\nexport const run = (): Thenable<unknown> => vscode.commands.executeCommand('ralph.runNext');\n"), []);
  });
});
