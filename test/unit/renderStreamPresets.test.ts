/**
 * The `${renderStream}` placeholder (the bundled CLI's render-stream, quoted for each shell) and the
 * presets that pipe the agents' JSON streams through it so that every run prints a receipt.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  AGENT_PRESETS,
  checkTemplate,
  commandExecutable,
  expandTemplate,
  getPreset,
  presetTemplate,
  resolveAgentCommand,
  TemplateError,
  templateWarnings,
  type ShellKind,
} from '../../src/core/agents/presets';
import { planAgentCommand } from '../../src/core/loop/iteration';

const vars = { promptFile: '/ws/.ralph/prompts/p.md', storyId: 'US-001', workspaceFolder: '/ws' };
const SHELLS: readonly ShellKind[] = ['posix', 'fish', 'powershell', 'cmd'];
const posixShells = ['/bin/sh', '/bin/bash', '/usr/bin/dash', '/bin/zsh', '/usr/bin/zsh'].filter((s) => existsSync(s));

describe('${renderStream}: the bundled render-stream on the command line', () => {
  const tool = { renderStream: ['/opt/My Code/code', "/home/o'neil/.vscode/ext/dist/cli.js", 'render-stream'] };

  it('expands to the install\'s program, script and "render-stream", quoted for each shell (spaces and quotes in the paths)', () => {
    const t = 'agent < ${promptFile} | ${renderStream} --agent claude';
    assert.equal(expandTemplate(t, vars, 'posix', tool), `agent < "$RALPH_PROMPT_FILE" | '/opt/My Code/code' '/home/o'\\''neil/.vscode/ext/dist/cli.js' render-stream --agent claude`);
    assert.equal(expandTemplate(t, vars, 'fish', tool), `agent < "$RALPH_PROMPT_FILE" | '/opt/My Code/code' '/home/o\\'neil/.vscode/ext/dist/cli.js' render-stream --agent claude`);
    assert.equal(
      expandTemplate('Get-Content -Raw -LiteralPath ${promptFile} | agent | ${renderStream} --agent claude', vars, 'powershell', tool),
      `Get-Content -Raw -LiteralPath $env:RALPH_PROMPT_FILE | agent | & '/opt/My Code/code' '/home/o''neil/.vscode/ext/dist/cli.js' 'render-stream' --agent claude`,
    );
    const win = { renderStream: ['C:\\Program Files\\Microsoft VS Code\\Code.exe', "C:\\Users\\o'neil\\.vscode\\extensions\\ralph\\dist\\cli.js", 'render-stream'] };
    assert.equal(
      expandTemplate(t, vars, 'cmd', win),
      `agent < "%RALPH_PROMPT_FILE%" | "C:\\Program Files\\Microsoft VS Code\\Code.exe" "C:\\Users\\o'neil\\.vscode\\extensions\\ralph\\dist\\cli.js" "render-stream" --agent claude`,
    );
  });

  it('a POSIX shell runs exactly that program with exactly those arguments (a real shell, paths with spaces, quotes, $ and backticks)', function () {
    if (posixShells.length === 0) {
      this.skip();
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'ralph-render-'));
    try {
      const odd = path.join(dir, `it's a "dir" $(x) \`y\``);
      mkdirSync(odd);
      const script = path.join(odd, 'cli.js');
      writeFileSync(script, 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.stringify([process.argv.slice(1), s])));');
      const line = expandTemplate('echo hello | ${renderStream} --agent codex', vars, 'posix', { renderStream: [process.execPath, script, 'render-stream'] });
      for (const shell of posixShells) {
        assert.deepEqual(JSON.parse(execFileSync(shell, ['-c', line], { encoding: 'utf8' })), [[script, 'render-stream', '--agent', 'codex'], 'hello\n'], shell);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is a command of its own: inside quotes it is an error that names the setting; without a bundled CLI, or a path cmd.exe cannot carry, a clear message', () => {
    for (const shell of SHELLS) {
      assert.match(checkTemplate('agent | "x ${renderStream}"', shell).error ?? '', /ralph\.agent\.command.*\$\{renderStream\} is a command of its own/, shell);
      assert.match(checkTemplate('agent | ${renderStream}x', shell).error ?? '', /\$\{renderStream\} is a command of its own/, shell);
      assert.match(checkTemplate('agent | "${renderStream}"', shell).error ?? '', /\$\{renderStream\} is a command of its own/, shell);
      assert.equal(checkTemplate('agent < ${promptFile} | ${renderStream} --agent amp', shell).error, undefined, shell);
    }
    assert.match(checkTemplate("agent | sh -c 'exec ${renderStream}'", 'posix').error ?? '', /inside single quotes/);
    assert.throws(() => expandTemplate('agent | ${renderStream}', vars, 'posix'), (e: Error) => e instanceof TemplateError && /\$\{renderStream\}.*bundled ralph-workbench command line.*is not known here/.test(e.message));
    assert.throws(
      () => expandTemplate('agent | ${renderStream}', vars, 'cmd', { renderStream: ['C:\\100%\\Code.exe', 'C:\\x\\cli.js', 'render-stream'] }),
      (e: Error) => e instanceof TemplateError && /\$\{renderStream\}.*cmd\.exe cannot take literally/.test(e.message),
    );
    assert.throws(
      () => expandTemplate('agent | ${renderStream}', vars, 'posix', { renderStream: ['/opt/code'], renderStreamEnv: { 'A;B': '1' } }),
      (e: Error) => e instanceof TemplateError && /\$\{renderStream\}: "A;B" is not an environment variable name/.test(e.message),
    );
  });
});

describe('${renderStream} in a real shell: ELECTRON_RUN_AS_NODE reaches the renderer, never the agent', () => {
  // The shells a terminal may run, without their users' startup files.
  const shells: readonly { readonly argv: readonly string[]; readonly kind: ShellKind }[] = [
    { argv: ['/bin/sh'], kind: 'posix' },
    { argv: ['/bin/bash', '--norc', '--noprofile'], kind: 'posix' },
    { argv: ['/usr/bin/dash'], kind: 'posix' },
    { argv: ['/usr/bin/zsh', '-f'], kind: 'posix' },
    { argv: ['/usr/bin/fish', '--no-config'], kind: 'fish' },
  ].filter((s) => existsSync(s.argv[0])) as { argv: string[]; kind: ShellKind }[];
  let dir = '';
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ralph-envscope-'));
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    // The agent: says whether it sees the variable, then streams its "JSON" on.
    writeFileSync(path.join(bin, 'agent'), '#!/bin/sh\necho "agent ELECTRON_RUN_AS_NODE=${ELECTRON_RUN_AS_NODE-unset}"\ncat\n', { mode: 0o755 });
    writeFileSync(path.join(dir, 'prompt.md'), 'the prompt\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A stand-in for VS Code's executable (Electron) in `folder`: records its environment and argv, then what it read. */
  function fakeElectron(folder: string): string {
    mkdirSync(folder, { recursive: true });
    const exe = path.join(folder, 'code');
    writeFileSync(exe, '#!/bin/sh\necho "renderer ELECTRON_RUN_AS_NODE=${ELECTRON_RUN_AS_NODE-unset}"\nfor a in "$@"; do echo "arg $a"; done\ncat\n', { mode: 0o755 });
    return exe;
  }

  for (const folderName of [`VS "Code" it's $(x) \`y\``, 'a=b VS Code']) {
    it(`the agent's environment has no ELECTRON_RUN_AS_NODE, the renderer's has it, the shell keeps none (program under ${JSON.stringify(folderName)})`, function () {
      if (shells.length === 0) {
        this.skip();
      }
      const exe = fakeElectron(path.join(dir, folderName));
      const script = path.join(dir, folderName, 'dist', 'cli.js');
      const renderStream = { argv: [exe, script, 'render-stream'], env: { ELECTRON_RUN_AS_NODE: '1' } };
      // The test's own process may run under Electron: the terminal starts without the variable.
      const hostEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'ELECTRON_RUN_AS_NODE'));
      for (const shell of shells) {
        const plan = planAgentCommand({
          presetId: 'custom',
          command: 'agent < ${promptFile} | ${renderStream} --agent codex',
          shell: shell.kind,
          exists: () => false,
          vars: { ...vars, promptFile: path.join(dir, 'prompt.md') },
          renderStream,
        });
        assert.ok(plan.ok, JSON.stringify(plan));
        // The terminal: the host's environment and the plan's, the line typed, then the shell's own view.
        const env = { ...hostEnv, ...plan.env, PATH: `${path.join(dir, 'bin')}${path.delimiter}${hostEnv.PATH ?? ''}` };
        const line = `${plan.commandLine}; echo "shell ELECTRON_RUN_AS_NODE=$ELECTRON_RUN_AS_NODE"`;
        const out = execFileSync(shell.argv[0], [...shell.argv.slice(1), '-c', line], { encoding: 'utf8', env });
        assert.deepEqual(
          out.split('\n'),
          [
            'renderer ELECTRON_RUN_AS_NODE=1',
            `arg ${script}`,
            'arg render-stream',
            'arg --agent',
            'arg codex',
            'agent ELECTRON_RUN_AS_NODE=unset',
            'the prompt',
            'shell ELECTRON_RUN_AS_NODE=',
            '',
          ],
          `${shell.argv[0]}: ${plan.commandLine}`,
        );
      }
    });
  }
});

describe('presets that print receipts: the agents\' JSON streams through ${renderStream}', () => {
  const flags: Record<string, RegExp> = {
    claude: /^claude --dangerously-skip-permissions --print --output-format stream-json --verbose\b/,
    codex: /^codex exec --json --dangerously-bypass-approvals-and-sandbox -(?= )/,
    amp: /^amp --execute --stream-json --dangerously-allow-all\b/,
  };

  it('claude, codex and amp ask for their JSON stream and pipe it through ${renderStream} --agent <preset>, in every shell; copilot is unchanged', () => {
    for (const [id, re] of Object.entries(flags)) {
      const p = getPreset(id);
      assert.ok(p);
      for (const shell of SHELLS) {
        const t = presetTemplate(p, shell);
        const agentPart = shell === 'powershell' ? t.replace(/^Get-Content -Raw -LiteralPath \$\{promptFile\} \| /, '') : t;
        assert.match(agentPart, re, `${id} ${shell}: ${t}`);
        assert.ok(t.endsWith(` | \${renderStream} --agent ${id}`), `${id} ${shell}: ${t}`);
        assert.equal(checkTemplate(t, shell).error, undefined, `${id} ${shell}`);
        assert.deepEqual(templateWarnings(t, shell, id), [], `${id} ${shell}`);
      }
    }
    assert.equal(getPreset('copilot')?.template, 'copilot --allow-all-tools < ${promptFile}');
    assert.ok(!AGENT_PRESETS.some((p) => p.id === 'copilot' && p.powershellTemplate.includes('renderStream')));
  });

  it('the missing-program check still looks for the agent (not the renderer), and a custom command is untouched', () => {
    const lookup = { path: '/nowhere', platform: 'posix' as const, exists: () => false };
    const renderStream = { argv: ['/opt/code', '/ext/dist/cli.js', 'render-stream'], env: { ELECTRON_RUN_AS_NODE: '1' } };
    for (const shell of SHELLS) {
      const plan = planAgentCommand({ presetId: 'claude', command: '', shell, exists: () => false, vars, lookup, renderStream });
      assert.equal(plan.ok, false);
      assert.equal(!plan.ok && plan.reason, 'missing-program', shell);
      assert.equal(!plan.ok && plan.program, 'claude', shell);
    }
    const resolved = resolveAgentCommand({ presetId: 'claude', command: 'my-agent < ${promptFile}', shell: 'posix', exists: () => false });
    assert.equal(resolved.ok && resolved.template, 'my-agent < ${promptFile}');
    assert.equal(commandExecutable('my-agent < x'), 'my-agent');
  });

  it("ELECTRON_RUN_AS_NODE reaches only the renderer: POSIX shells and fish run it through env on the line and the terminal's environment has none; PowerShell and cmd.exe keep it in the terminal's environment", () => {
    const renderStream = { argv: ['/opt/code', '/ext/dist/cli.js', 'render-stream'], env: { ELECTRON_RUN_AS_NODE: '1' } };
    const preset = planAgentCommand({ presetId: 'claude', command: '', shell: 'posix', exists: () => false, vars, renderStream });
    assert.ok(preset.ok);
    assert.equal(preset.ok && 'ELECTRON_RUN_AS_NODE' in preset.env, false);
    assert.equal(
      preset.ok && preset.commandLine,
      `claude --dangerously-skip-permissions --print --output-format stream-json --verbose < "$RALPH_PROMPT_FILE" | env ELECTRON_RUN_AS_NODE=1 /opt/code /ext/dist/cli.js render-stream --agent claude`,
    );
    assert.equal(preset.ok && preset.agent, 'claude');
    const fish = planAgentCommand({ presetId: 'claude', command: '', shell: 'fish', exists: () => false, vars, renderStream });
    assert.equal(fish.ok && 'ELECTRON_RUN_AS_NODE' in fish.env, false);
    assert.ok(fish.ok && fish.commandLine.endsWith(' | env ELECTRON_RUN_AS_NODE=1 /opt/code /ext/dist/cli.js render-stream --agent claude'), fish.ok ? fish.commandLine : '');
    // No scoped form is exact in PowerShell ($env: is the whole session's) or cmd.exe: the terminal keeps it there.
    for (const shell of ['powershell', 'cmd'] as const) {
      const plan = planAgentCommand({ presetId: 'claude', command: '', shell, exists: () => false, vars, renderStream });
      assert.equal(plan.ok && plan.env.ELECTRON_RUN_AS_NODE, '1', shell);
      assert.ok(plan.ok && !plan.commandLine.includes('ELECTRON_RUN_AS_NODE'), shell);
    }
    const custom = planAgentCommand({ presetId: 'claude', command: 'my-agent < ${promptFile}', shell: 'posix', exists: () => false, vars, renderStream });
    assert.ok(custom.ok);
    assert.equal(custom.ok && custom.env.ELECTRON_RUN_AS_NODE, undefined);
    assert.equal(custom.ok && custom.commandLine, 'my-agent < "$RALPH_PROMPT_FILE"');
    // The CLI runs render-stream with Node: no variable at all.
    const cli = planAgentCommand({ presetId: 'claude', command: '', shell: 'posix', exists: () => false, vars, renderStream: { argv: renderStream.argv } });
    assert.ok(cli.ok && cli.commandLine.endsWith(' | /opt/code /ext/dist/cli.js render-stream --agent claude') && !('ELECTRON_RUN_AS_NODE' in cli.env));
    const none = planAgentCommand({ presetId: 'codex', command: '', shell: 'posix', exists: () => false, vars });
    assert.equal(none.ok, false);
    assert.match(!none.ok ? none.message : '', /\$\{renderStream\}/);
  });
});
