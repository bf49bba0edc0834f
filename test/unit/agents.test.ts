/** Agent presets, command templates, shell quoting (checked against a real /bin/sh), and executable lookup. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import {
  agentEnvironment,
  AGENT_PRESETS,
  checkTemplate,
  commandExecutable,
  expandTemplate,
  getPreset,
  missingExecutableMessage,
  presetTemplate,
  quoteArg,
  ralphShTemplate,
  resolveAgentCommand,
  resolveExecutable,
  shellKindOf,
  TemplateError,
  templateWarnings,
  type ShellKind,
} from '../../src/core/agents/presets';

const vars = { promptFile: '/ws/.ralph/prompts/20260101-120000-US-001.md', storyId: 'US-001', workspaceFolder: '/ws' };
const noControl = (s: string): boolean => !/[\u0000-\u0008\u000a-\u001f\u007f]/.test(s);

/** Runs a POSIX shell on a script and returns stdout. */
function sh(shell: string, script: string, cwd?: string): string {
  return execFileSync(shell, ['-c', script], { encoding: 'utf8', cwd });
}

const shells = ['/bin/sh', '/bin/bash', '/usr/bin/dash', '/bin/zsh', '/usr/bin/zsh'].filter((s) => existsSync(s));

describe('agent presets', () => {
  it('has the six presets with documented defaults', () => {
    assert.deepEqual(
      AGENT_PRESETS.map((p) => p.id),
      ['claude', 'amp', 'codex', 'copilot', 'ralphSh', 'custom'],
    );
    assert.equal(getPreset('claude')?.template, 'claude --dangerously-skip-permissions --print --output-format stream-json --verbose < ${promptFile} | ${renderStream} --agent claude');
    assert.equal(getPreset('amp')?.template, 'amp --execute --stream-json --dangerously-allow-all < ${promptFile} | ${renderStream} --agent amp');
    assert.equal(getPreset('nope'), undefined);
    for (const p of AGENT_PRESETS) {
      assert.ok(p.docs.length > 20, p.id);
      if (p.id !== 'custom') {
        assert.ok(p.executable, p.id);
        for (const shell of ['posix', 'powershell', 'cmd'] as const) {
          const t = presetTemplate(p, shell);
          assert.equal(checkTemplate(t, shell).error, undefined, `${p.id} ${shell}`);
          assert.deepEqual(templateWarnings(t, shell, p.id), [], `${p.id} ${shell}`);
          if (p.id !== 'ralphSh') {
            assert.equal(commandExecutable(t.replace(/^Get-Content[^|]*\| /, '')), p.executable);
          }
        }
      }
    }
  });

  it('never puts story text on the command line: templates only know the three placeholders', () => {
    for (const p of AGENT_PRESETS) {
      assert.doesNotMatch(p.template, /title|description/i);
    }
    assert.throws(() => expandTemplate('agent ${storyTitle}', vars, 'posix'), /unknown placeholder "\$\{storyTitle\}"/);
  });

  it('finds the workspace loop script: ./ralph.sh first, then scripts/ralph/ralph.sh', () => {
    assert.equal(ralphShTemplate((p) => p === 'ralph.sh' || p === 'scripts/ralph/ralph.sh'), 'bash ./ralph.sh 1');
    assert.equal(ralphShTemplate((p) => p === 'scripts/ralph/ralph.sh'), 'bash ./scripts/ralph/ralph.sh 1');
    assert.equal(ralphShTemplate(() => false), undefined);
  });
});

describe('expandTemplate', () => {
  it('refers to the terminal environment for every placeholder, in each shell', () => {
    const t = 'claude --print < ${promptFile} # ${storyId} in ${workspaceFolder}';
    assert.equal(expandTemplate(t, vars, 'posix'), 'claude --print < "$RALPH_PROMPT_FILE" # "$RALPH_STORY_ID" in "$RALPH_WORKSPACE_FOLDER"');
    assert.equal(expandTemplate('a < ${promptFile}', vars, 'fish'), 'a < "$RALPH_PROMPT_FILE"');
    assert.equal(expandTemplate('a ${promptFile} ${storyId}', vars, 'powershell'), 'a $env:RALPH_PROMPT_FILE $env:RALPH_STORY_ID');
    assert.equal(expandTemplate('a ${storyId} ${workspaceFolder}', vars, 'cmd'), 'a "%RALPH_STORY_ID%" "%RALPH_WORKSPACE_FOLDER%"');
    assert.deepEqual(agentEnvironment(vars), { RALPH_PROMPT_FILE: vars.promptFile, RALPH_STORY_ID: 'US-001', RALPH_WORKSPACE_FOLDER: '/ws' });
  });

  it('the typed command line for a hostile story id contains no byte of the id, in any shell', () => {
    const hostile = 'Q\t; touch pwned; echo \\';
    const v = { promptFile: "/my ws/it's.md", storyId: hostile, workspaceFolder: '/my ws' };
    for (const shell of ['posix', 'fish', 'powershell'] as const) {
      const line = expandTemplate('my-agent --story ${storyId} < ${promptFile}', v, shell);
      for (const ch of new Set([...hostile, "'", ' ws'])) {
        if (!/[A-Za-z ]/.test(ch) || ch === ' ws') {
          assert.ok(!line.includes(ch), `${shell}: ${JSON.stringify(line)} holds ${JSON.stringify(ch)} of a value`);
        }
      }
      assert.ok(!line.includes('pwned') && !line.includes('\t'), line);
    }
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).filter((s) => !s.includes('\0') && !s.startsWith('-')), (id) => {
        const line = expandTemplate('my-agent --story ${storyId} < ${promptFile}', { ...vars, storyId: id }, 'posix');
        assert.equal(line, 'my-agent --story "$RALPH_STORY_ID" < "$RALPH_PROMPT_FILE"');
      }),
      { numRuns: 300 },
    );
  });

  it('treats a placeholder the user already quoted like the bare one', () => {
    assert.equal(expandTemplate('claude < "${promptFile}"', vars, 'posix'), 'claude < "$RALPH_PROMPT_FILE"');
    assert.equal(expandTemplate("claude < '${promptFile}'", vars, 'posix'), 'claude < "$RALPH_PROMPT_FILE"');
    assert.equal(expandTemplate('x "${storyId}"', vars, 'powershell'), 'x $env:RALPH_STORY_ID');
  });

  it('accepts placeholders inside double quotes and command substitutions (the copilot docs form)', () => {
    const copilot = 'copilot -p "$(cat ${promptFile})" --allow-all-tools';
    assert.equal(checkTemplate(copilot, 'posix').error, undefined);
    assert.equal(expandTemplate(copilot, vars, 'posix'), 'copilot -p "$(cat "$RALPH_PROMPT_FILE")" --allow-all-tools');
    assert.equal(expandTemplate('a "--story=${storyId}.x"', vars, 'posix'), 'a "--story=${RALPH_STORY_ID}.x"');
    assert.equal(expandTemplate('a "${storyId}x"', vars, 'fish'), 'a "$RALPH_STORY_ID""x"');
    assert.equal(expandTemplate('a "id ${storyId}"', vars, 'powershell'), 'a "id ${env:RALPH_STORY_ID}"');
    assert.equal(expandTemplate('sh -c "claude < ${promptFile}"', vars, 'posix'), 'sh -c "claude < ${RALPH_PROMPT_FILE}"');
  });

  it('rejects a placeholder inside single quotes, where no shell expands it', () => {
    assert.throws(() => expandTemplate("sh -c 'claude < ${promptFile}'", vars, 'posix'), (e: Error) => {
      assert.ok(e instanceof TemplateError);
      assert.match(e.message, /ralph\.agent\.command/);
      assert.match(e.message, /\$\{promptFile\} is inside single quotes/);
      return true;
    });
  });

  it('rejects an unclosed quote or $( (the shell would wait for input forever)', () => {
    for (const [t, shell] of [
      ['claude < ${promptFile} "', 'posix'],
      ["claude --x 'a < ${promptFile}", 'posix'],
      ['copilot -p "$(cat ${promptFile}"', 'posix'],
      ['copilot -p $(cat ${promptFile}', 'fish'],
      ['a "${storyId}', 'powershell'],
      ['a < ${promptFile} "', 'cmd'],
    ] as const) {
      assert.match(checkTemplate(t, shell).error ?? '', /never closed/, `${shell}: ${t}`);
      assert.throws(() => expandTemplate(t, vars, shell), TemplateError);
    }
    assert.equal(checkTemplate('echo "it\'s" < ${promptFile}', 'posix').error, undefined);
    assert.equal(checkTemplate("echo 'a\\' < ${promptFile}", 'posix').error, undefined);
  });

  it('reports unknown and unterminated placeholders naming the setting', () => {
    assert.throws(() => expandTemplate('claude < ${promptfile}', vars, 'posix'), /ralph\.agent\.command.*unknown placeholder "\$\{promptfile\}".*Placeholders are \$\{promptFile\}, \$\{storyId\}, \$\{workspaceFolder\}/);
    assert.throws(() => expandTemplate('cd ${HOME} && x', vars, 'posix'), /write \$HOME without braces/);
    assert.throws(() => expandTemplate('x ${promptFile', vars, 'posix'), /without a closing/);
    assert.throws(() => expandTemplate('echo "${HOME}"', vars, 'posix'), /unknown placeholder/);
    assert.match(checkTemplate('x ${a} ${b}').error ?? '', /"\$\{a\}".*"\$\{b\}"/);
  });

  it('leaves escaped ${…} and plain shell variables alone', () => {
    assert.equal(expandTemplate('echo \\${HOME} $HOME ${storyId}', vars, 'posix'), 'echo \\${HOME} $HOME "$RALPH_STORY_ID"');
    assert.equal(expandTemplate('echo `${env:HOME} $env:HOME', vars, 'powershell'), 'echo `${env:HOME} $env:HOME');
    assert.deepEqual(checkTemplate('a ${storyId} ${storyId} ${promptFile}').used, ['storyId', 'promptFile']);
  });

  it('refuses a story id that starts with "-" where it stands as a word, unless after "--" or attached to its option', () => {
    const v = { ...vars, storyId: '-rf' };
    assert.throws(() => expandTemplate('my-agent --story ${storyId} < ${promptFile}', v, 'posix'), /starts with "-".*put "--" before/);
    assert.equal(expandTemplate('my-agent -- ${storyId} < ${promptFile}', v, 'posix'), 'my-agent -- "$RALPH_STORY_ID" < "$RALPH_PROMPT_FILE"');
    assert.equal(expandTemplate('my-agent --story=${storyId} < ${promptFile}', v, 'posix'), 'my-agent --story="$RALPH_STORY_ID" < "$RALPH_PROMPT_FILE"');
    assert.equal(expandTemplate('claude < ${promptFile}', v, 'posix'), 'claude < "$RALPH_PROMPT_FILE"', 'an id not on the command line is fine');
  });

  it('refuses values cmd.exe cannot carry, and NUL anywhere; line breaks travel in the environment', () => {
    for (const bad of ['50%', 'a!b', 'a"b', 'a\nb']) {
      assert.throws(() => expandTemplate('a ${storyId}', { ...vars, storyId: bad }, 'cmd'), /cmd\.exe/);
    }
    assert.throws(() => expandTemplate('a ${storyId}', { ...vars, storyId: 'a\0b' }, 'posix'), /NUL/);
    assert.equal(expandTemplate('a ${storyId}', { ...vars, storyId: 'US-1\nrm -rf ~' }, 'posix'), 'a "$RALPH_STORY_ID"');
    for (const bad of ['50%', 'a!b', 'a"b']) {
      assert.throws(() => quoteArg(bad, 'cmd'), /cmd\.exe/);
    }
  });

  it('warns when PowerShell meets < redirection, and when the prompt file is not used', () => {
    assert.match(templateWarnings('claude --print < ${promptFile}', 'powershell')[0], /PowerShell has no "<"/);
    assert.deepEqual(templateWarnings('claude --print < ${promptFile}', 'posix'), []);
    assert.match(templateWarnings('claude --print', 'posix')[0], /does not use \$\{promptFile\}/);
  });
});

describe('POSIX quoting against a real shell', function () {
  this.timeout(60000);

  // Batches of random strings per shell run: `printf '%s\0' <quoted>` must print exactly the original.
  for (const shell of shells) {
    it(`round-trips random strings through ${shell}`, () => {
      fc.assert(
        fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 24 }).filter(noControl), { minLength: 1, maxLength: 25 }), (values) => {
          const script = values.map((v) => `printf '%s\\0' ${quoteArg(v, 'posix')}`).join('\n');
          const out = sh(shell, script).split('\0');
          out.pop();
          assert.deepEqual(out, values);
        }),
        { numRuns: 20 },
      );
    });
  }

  it('round-trips strings made of shell metacharacters through expandTemplate, the environment and each shell', () => {
    const meta = fc.string({ unit: fc.constantFrom(...`;|&$()\`'"\\<>*?[]{}~#!% =\t\n,./-_aZ9é`.split('')), maxLength: 30 });
    for (const shell of shells) {
      fc.assert(
        fc.property(meta, (id) => {
          const line = expandTemplate(`printf '%s\\0' \${storyId} "x\${storyId}" "$(printf %s \${storyId})"`, { ...vars, storyId: id.startsWith('-') ? `x${id}` : id }, 'posix');
          const value = id.startsWith('-') ? `x${id}` : id;
          const out = execFileSync(shell, ['-c', line], { encoding: 'utf8', env: { ...process.env, ...agentEnvironment({ ...vars, storyId: value }) } }).split('\0');
          out.pop();
          assert.deepEqual(out, [value, `x${value}`, value.replace(/\n+$/, '')]);
        }),
        { numRuns: 15 },
      );
    }
  });

  it('keeps hostile story ids inert (a TAB, quotes, $(…), backquotes)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ralph-quote-'));
    try {
      for (const id of ['Q\t; touch pwned0; echo \\', 'US-1; touch pwned1', 'a/b$(touch pwned2)', '`touch pwned3`', "x' ; touch pwned4 ; '", '$(touch${IFS}pwned5)', '']) {
        const cmd = expandTemplate('printf "[%s]" ${storyId}', { ...vars, storyId: id }, 'posix');
        assert.equal(execFileSync('/bin/sh', ['-c', cmd], { encoding: 'utf8', cwd: dir, env: { ...process.env, ...agentEnvironment({ ...vars, storyId: id }) } }), `[${id}]`);
      }
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('shells and executables', () => {
  it('classifies terminal shells', () => {
    const cases: [string, ShellKind | undefined][] = [
      ['/bin/bash', 'posix'],
      ['/usr/bin/zsh', 'posix'],
      ['C:\\Program Files\\Git\\bin\\bash.exe', 'posix'],
      ['/opt/homebrew/bin/fish', 'fish'],
      ['C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', 'powershell'],
      ['pwsh', 'powershell'],
      ['C:\\Windows\\System32\\cmd.exe', 'cmd'],
      ['/bin/tcsh', undefined],
      ['/usr/bin/nu', undefined],
    ];
    for (const [p, kind] of cases) {
      assert.equal(shellKindOf(p), kind, p);
    }
  });

  it('finds the program a custom command starts', () => {
    assert.equal(commandExecutable('claude --print < x'), 'claude');
    assert.equal(commandExecutable('FOO=1 BAR="a b" amp --x'), 'amp');
    assert.equal(commandExecutable('"/opt/my agent/bin/agent" run'), '/opt/my agent/bin/agent');
    assert.equal(commandExecutable("& 'C:\\Tools\\agent.exe' -p"), 'C:\\Tools\\agent.exe');
    assert.equal(commandExecutable('$AGENT run'), undefined);
    assert.equal(commandExecutable('${promptFile}'), undefined);
    assert.equal(commandExecutable('   '), undefined);
    assert.equal(commandExecutable('agent<${promptFile}'), 'agent');
  });

  it('resolves executables on a POSIX PATH', () => {
    const files = new Set(['/usr/local/bin/claude', '/ws/ralph.sh']);
    const env = { path: '/usr/bin::/usr/local/bin', platform: 'posix' as const, cwd: '/ws', exists: (p: string) => files.has(p) };
    assert.equal(resolveExecutable('claude', env), '/usr/local/bin/claude');
    assert.equal(resolveExecutable('amp', env), undefined);
    assert.equal(resolveExecutable('./ralph.sh', env), '/ws/ralph.sh');
    assert.equal(resolveExecutable('/usr/local/bin/claude', env), '/usr/local/bin/claude');
    assert.equal(resolveExecutable('claude', { ...env, path: undefined }), undefined);
  });

  it('resolves executables on a Windows PATH with PATHEXT', () => {
    const files = new Set(['C:\\npm\\claude.cmd', 'C:\\Program Files\\Amp\\amp.exe']);
    const env = {
      path: 'C:\\Windows;"C:\\Program Files\\Amp";C:\\npm\\',
      pathExt: '.COM;.EXE;.BAT;.CMD',
      platform: 'win32' as const,
      exists: (p: string) => files.has(p),
    };
    assert.equal(resolveExecutable('claude', env), 'C:\\npm\\claude.cmd');
    assert.equal(resolveExecutable('amp', env), 'C:\\Program Files\\Amp\\amp.exe');
    assert.equal(resolveExecutable('amp.exe', env), 'C:\\Program Files\\Amp\\amp.exe');
    assert.equal(resolveExecutable('codex', env), undefined);
  });

  it('says which setting to change when the agent is missing', () => {
    const m = missingExecutableMessage('claude', 'claude');
    assert.match(m, /Claude Code \("claude"\) was not found on PATH/);
    assert.match(m, /ralph\.agent\.preset/);
    assert.match(m, /ralph\.agent\.command/);
    assert.match(missingExecutableMessage('my-agent', 'custom'), /"my-agent" was not found/);
  });
});

describe('resolveAgentCommand', () => {
  const none = (): boolean => false;

  it('picks the preset template for the shell, claude by default', () => {
    assert.deepEqual(resolveAgentCommand({ shell: 'posix', exists: none }), {
      ok: true,
      presetId: 'claude',
      template: 'claude --dangerously-skip-permissions --print --output-format stream-json --verbose < ${promptFile} | ${renderStream} --agent claude',
      executable: 'claude',
      warnings: [],
    });
    const ps = resolveAgentCommand({ presetId: 'amp', shell: 'powershell', exists: none });
    assert.ok(ps.ok);
    assert.equal(ps.template, 'Get-Content -Raw -LiteralPath ${promptFile} | amp --execute --stream-json --dangerously-allow-all | ${renderStream} --agent amp');
    assert.equal(ps.executable, 'amp');
  });

  it('lets ralph.agent.command override the preset, and finds its program', () => {
    const r = resolveAgentCommand({ presetId: 'claude', command: '  cat ${promptFile} | my-agent --yolo ', shell: 'posix', exists: none });
    assert.ok(r.ok);
    assert.equal(r.template, 'cat ${promptFile} | my-agent --yolo');
    assert.equal(r.executable, 'my-agent');
    const ps = resolveAgentCommand({ command: 'Get-Content -Raw ${promptFile} | & "C:\\Tools\\agent.exe"', shell: 'powershell', exists: none });
    assert.ok(ps.ok);
    assert.equal(ps.executable, 'C:\\Tools\\agent.exe');
    const warn = resolveAgentCommand({ command: 'my-agent --story ${storyId}', shell: 'posix', exists: none });
    assert.ok(warn.ok);
    assert.match(warn.warnings[0], /does not use \$\{promptFile\}/);
  });

  it('uses the ralph.sh that exists', () => {
    const r = resolveAgentCommand({ presetId: 'ralphSh', shell: 'posix', exists: (p) => p === 'scripts/ralph/ralph.sh' });
    assert.ok(r.ok);
    assert.equal(r.template, 'bash ./scripts/ralph/ralph.sh 1');
    assert.deepEqual(r.warnings, []);
  });

  it('explains what to change when nothing usable is configured', () => {
    const cases: [Parameters<typeof resolveAgentCommand>[0], RegExp][] = [
      [{ presetId: 'gpt', shell: 'posix', exists: none }, /Unknown agent preset "gpt" in the setting ralph\.agent\.preset/],
      [{ presetId: 'custom', shell: 'posix', exists: none }, /"custom" but the setting ralph\.agent\.command is empty/],
      [{ presetId: 'ralphSh', shell: 'posix', exists: none }, /no ralph\.sh in this workspace .*ralph\.agent\.preset/],
      [{ command: 'agent < ${prompt}', shell: 'posix', exists: none }, /ralph\.agent\.command .*unknown placeholder "\$\{prompt\}"/],
    ];
    for (const [settings, message] of cases) {
      const r = resolveAgentCommand(settings);
      assert.equal(r.ok, false);
      assert.match((r as { message: string }).message, message);
    }
  });
});
