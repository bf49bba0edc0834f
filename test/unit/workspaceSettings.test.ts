/**
 * The CLI's reading of a workspace's ralph.* settings (`.vscode/settings.json`): the value where it
 * is present and usable, else the extension's default, and a line per problem that names the key
 * and where it is.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { SETTING_KEYS, type SettingName } from '../../src/core/settingKeys';
import { settingsFromText } from '../../src/core/settingsFile';
import { MAX_SETTINGS_BYTES, readWorkspaceSettings } from '../../src/node/workspaceSettings';

const defaults = Object.fromEntries(Object.entries(SETTING_KEYS).map(([name, entry]) => [name, entry.default]));

describe('workspace settings (.vscode/settings.json for the CLI)', () => {
  let base: string;
  let root: string;
  const write = (text: string): void => {
    mkdirSync(path.join(root, '.vscode'), { recursive: true });
    writeFileSync(path.join(root, '.vscode', 'settings.json'), text);
  };
  beforeEach(() => {
    base = mkdtempSync(path.join(tmpdir(), 'ralph-ws-settings-'));
    root = path.join(base, 'repo');
    mkdirSync(root);
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('gives every default, and no problem, when the folder has no settings file', () => {
    const read = readWorkspaceSettings(root);
    assert.deepEqual(read.values, defaults);
    assert.deepEqual(read.problems, []);
  });

  it('takes the ralph.* values a settings.json with comments and trailing commas sets, and the defaults for the rest', () => {
    write(
      [
        '// Project settings',
        '{',
        '  "editor.tabSize": 2,',
        '  /* the parallel runner */',
        '  "ralph.parallel.maxAgents": 5,',
        '  "ralph.parallel.merge": "rebase",',
        '  "ralph.parallel.checkCommand": "npm test",',
        '  "ralph.parallel.allowOverlap": true,',
        '  "ralph.parallel.runTimeoutMinutes": 0,',
        '  "ralph.prdPath": " scripts/ralph/prd.json ",',
        '  "ralph.github.trustedAuthors": ["OWNER", "@octocat",],',
        '}',
        '',
      ].join('\n'),
    );
    const read = readWorkspaceSettings(root);
    assert.deepEqual(read.problems, []);
    assert.deepEqual(read.values, {
      ...defaults,
      parallelMaxAgents: 5,
      parallelMerge: 'rebase',
      parallelCheckCommand: 'npm test',
      parallelAllowOverlap: true,
      parallelRunTimeoutMinutes: 0,
      prdPath: 'scripts/ralph/prd.json',
      githubTrustedAuthors: ['OWNER', '@octocat'],
    });
  });

  it('uses the default for a value of the wrong type or out of range, and names the key and its line', () => {
    write(
      [
        '{',
        '  "ralph.loop.maxIterations": 4.7,',
        '  "ralph.parallel.merge": "squash",',
        '  "ralph.parallel.allowOverlap": "yes",',
        '  "ralph.parallel.runTimeoutMinutes": -5,',
        '  "ralph.github.artifactFolders": ["docs", 3],',
        '  "ralph.parallel.maxAgents": "five",',
        '  "ralph.agent.command": null',
        '}',
      ].join('\n'),
    );
    const read = readWorkspaceSettings(root);
    assert.equal(read.values.maxIterations, 4);
    assert.equal(read.values.parallelMaxAgents, 3);
    assert.equal(read.values.parallelMerge, 'merge');
    assert.equal(read.values.parallelAllowOverlap, false);
    assert.equal(read.values.parallelRunTimeoutMinutes, 60);
    assert.deepEqual(read.values.githubArtifactFolders, []);
    assert.equal(read.values.agentCommand, '');
    assert.deepEqual(
      read.problems.map((p) => p.message),
      [
        'ralph.parallel.merge at .vscode/settings.json:3 is not one of merge, rebase; using "merge"',
        'ralph.parallel.allowOverlap at .vscode/settings.json:4 is not true or false; using false',
        'ralph.parallel.runTimeoutMinutes at .vscode/settings.json:5 is less than 0; using 60',
        'ralph.github.artifactFolders at .vscode/settings.json:6 is not a list of texts; using []',
        'ralph.parallel.maxAgents at .vscode/settings.json:7 is not a number; using 3',
        'ralph.agent.command at .vscode/settings.json:8 is not text; using the default (empty)',
      ],
    );
    assert.deepEqual(
      read.problems.map((p) => [p.setting, p.line]),
      [
        ['ralph.parallel.merge', 3],
        ['ralph.parallel.allowOverlap', 4],
        ['ralph.parallel.runTimeoutMinutes', 5],
        ['ralph.github.artifactFolders', 6],
        ['ralph.parallel.maxAgents', 7],
        ['ralph.agent.command', 8],
      ],
    );
  });

  it('never takes a machine setting (the worktree folder) from the workspace, and says so', () => {
    write('{\n  "ralph.parallel.worktreeRoot": "/etc/somewhere"\n}\n');
    const read = readWorkspaceSettings(root);
    assert.equal(read.values.parallelWorktreeRoot, '');
    assert.equal(read.problems.length, 1);
    assert.equal(read.problems[0].setting, 'ralph.parallel.worktreeRoot');
    assert.equal(read.problems[0].line, 2);
    assert.match(read.problems[0].message, /^ralph\.parallel\.worktreeRoot at \.vscode\/settings\.json:2 is ignored: only your user settings can set it/);
  });

  it('names a ralph.* key that is no setting (a typo), and uses nothing from it', () => {
    write('{\n  "ralph.parallel.maxAgent": 8\n}\n');
    const read = readWorkspaceSettings(root);
    assert.deepEqual(read.values, defaults);
    assert.deepEqual(
      read.problems.map((p) => p.message),
      ['ralph.parallel.maxAgent at .vscode/settings.json:2 is not a setting of Ralph Workbench; it was not used'],
    );
  });

  it('uses every default, with one problem at its line, when the file does not parse', () => {
    write('{\n  "ralph.parallel.maxAgents": 5,\n  "ralph.parallel.merge": rebase\n}\n');
    const read = readWorkspaceSettings(root);
    assert.deepEqual(read.values, defaults);
    assert.equal(read.problems.length, 1);
    assert.equal(read.problems[0].line, 3);
    assert.equal(read.problems[0].message, '.vscode/settings.json:3 does not parse (unexpected character); using the defaults of every ralph.* setting');
  });

  it('says when the file is not an object', () => {
    write('[1, 2]\n');
    const read = readWorkspaceSettings(root);
    assert.deepEqual(read.values, defaults);
    assert.deepEqual(
      read.problems.map((p) => p.message),
      ['.vscode/settings.json:1 is not an object of settings; using the defaults of every ralph.* setting'],
    );
  });

  it('does not follow a settings.json that is a symbolic link out of the folder', () => {
    const outside = path.join(base, 'elsewhere.json');
    writeFileSync(outside, '{ "ralph.parallel.maxAgents": 9 }');
    mkdirSync(path.join(root, '.vscode'));
    symlinkSync(outside, path.join(root, '.vscode', 'settings.json'));
    const read = readWorkspaceSettings(root);
    assert.equal(read.values.parallelMaxAgents, 3);
    assert.equal(read.problems.length, 1);
    assert.match(read.problems[0].message, /symbolic link.*using the defaults/);
  });

  it('does not read what is not a regular file (a folder, a FIFO), and does not hang', () => {
    mkdirSync(path.join(root, '.vscode', 'settings.json'), { recursive: true });
    assert.match(readWorkspaceSettings(root).problems[0].message, /not a regular file.*using the defaults/);
    rmSync(path.join(root, '.vscode', 'settings.json'), { recursive: true });
    execFileSync('mkfifo', [path.join(root, '.vscode', 'settings.json')]);
    assert.match(readWorkspaceSettings(root).problems[0].message, /not a regular file.*using the defaults/);
  });

  it('reads no more than its bound of a huge file, and says so', () => {
    write(`{ "ralph.parallel.maxAgents": 5, "pad": "${'x'.repeat(MAX_SETTINGS_BYTES)}" }`);
    const read = readWorkspaceSettings(root);
    assert.deepEqual(read.values, defaults);
    assert.equal(read.problems.length, 1);
    assert.match(read.problems[0].message, /^\.vscode\/settings\.json is larger than 1 MiB: it was not read; using the defaults/);
  });

  it('refuses nesting too deep to read without recursion, at its line', () => {
    const read = settingsFromText(`{\n "x": ${'['.repeat(100_000)}`, '.vscode/settings.json');
    assert.deepEqual(read.values, defaults);
    assert.equal(read.problems.length, 1);
    assert.match(read.problems[0].message, /^\.vscode\/settings\.json:2 is nested more than \d+ levels deep/);
  });

  it('never throws, whatever the text, and every value it gives has its default’s type', () => {
    const ralphKey = fc.constantFrom(...Object.values(SETTING_KEYS).map((e) => `ralph.${e.key}`), 'ralph.x', 'editor.tabSize');
    const jsonish = fc.oneof(
      fc.string(),
      fc.dictionary(ralphKey, fc.jsonValue({ maxDepth: 3 })).map((o) => JSON.stringify(o, null, 2)),
      fc
        .tuple(fc.dictionary(ralphKey, fc.jsonValue({ maxDepth: 2 })).map((o) => JSON.stringify(o, null, 1)), fc.nat(), fc.string({ maxLength: 4 }))
        .map(([t, at, junk]) => t.slice(0, at % (t.length + 1)) + junk + t.slice(at % (t.length + 1))),
    );
    fc.assert(
      fc.property(jsonish, (text) => {
        const read = settingsFromText(text, '.vscode/settings.json');
        for (const [name, entry] of Object.entries(SETTING_KEYS) as [SettingName, (typeof SETTING_KEYS)[SettingName]][]) {
          const value: unknown = read.values[name];
          assert.equal(Array.isArray(value), Array.isArray(entry.default), name);
          assert.equal(typeof value, typeof entry.default, name);
        }
        for (const p of read.problems) {
          assert.equal(typeof p.message, 'string');
          assert.ok(p.line === undefined || (Number.isInteger(p.line) && p.line >= 1));
        }
      }),
      { numRuns: 300 },
    );
  });
});
