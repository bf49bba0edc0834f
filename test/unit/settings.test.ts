/** The settings table (src/core/settingKeys.ts) and package.json declare the same keys with the same defaults. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MERGE_MODES } from '../../src/core/parallel/state';
import { SETTING_KEYS, settingEntry, settingId } from '../../src/core/settingKeys';

const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, { default: unknown }> } };
};

describe('settings', () => {
  it('declares every package.json setting once, with the same default', () => {
    const declared = pkg.contributes.configuration.properties;
    const fromTable = Object.fromEntries(Object.keys(SETTING_KEYS).map((n) => [settingId(n as keyof typeof SETTING_KEYS), SETTING_KEYS[n as keyof typeof SETTING_KEYS].default]));
    const fromPackage = Object.fromEntries(Object.entries(declared).map(([k, v]) => [k, v.default]));
    assert.deepEqual(fromTable, fromPackage);
  });
});

type Declared = {
  type: string;
  default: unknown;
  scope?: string;
  minimum?: number;
  enum?: string[];
  enumDescriptions?: string[];
  markdownDescription?: string;
};

describe('settings: ralph.parallel.*', () => {
  const props = (pkg.contributes.configuration.properties as Record<string, Declared>);
  const restricted = (JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } } })
    .capabilities.untrustedWorkspaces.restrictedConfigurations;

  it('declares what a parallel run reads, with the defaults the issue names and a description a user understands', () => {
    const want: Record<string, Partial<Declared>> = {
      'ralph.parallel.maxAgents': { type: 'integer', default: 3, minimum: 1 },
      'ralph.parallel.worktreeRoot': { type: 'string', default: '', scope: 'machine' },
      'ralph.parallel.merge': { type: 'string', default: 'merge', enum: ['merge', 'rebase'] },
      'ralph.parallel.checkCommand': { type: 'string', default: '' },
      'ralph.parallel.allowOverlap': { type: 'boolean', default: false },
      'ralph.parallel.runTimeoutMinutes': { type: 'number', default: 60, minimum: 0 },
    };
    for (const [id, fields] of Object.entries(want)) {
      const declared = props[id];
      assert.ok(declared, `${id} is declared in package.json`);
      for (const [field, value] of Object.entries(fields)) {
        assert.deepEqual(declared[field as keyof Declared], value, `${id}: ${field}`);
      }
      assert.ok((declared.markdownDescription ?? '').length > 40, `${id} says what it does`);
    }
    assert.equal(props['ralph.parallel.merge'].enumDescriptions?.length, 2);
    assert.deepEqual([...MERGE_MODES], props['ralph.parallel.merge'].enum, 'the merge queue knows every choice');
    assert.match(props['ralph.parallel.worktreeRoot'].markdownDescription ?? '', /ralph-worktrees/);
    assert.match(props['ralph.parallel.runTimeoutMinutes'].markdownDescription ?? '', /`0`/);
  });

  it('keeps the check command out of an untrusted workspace, as the agent command', () => {
    assert.ok(restricted.includes('ralph.agent.command'));
    assert.ok(restricted.includes('ralph.parallel.checkCommand'));
  });

  it('holds the table’s rules equal to package.json: machine scope, choices, and no floor above the declared minimum', () => {
    for (const name of Object.keys(SETTING_KEYS) as (keyof typeof SETTING_KEYS)[]) {
      const entry = settingEntry(name);
      const declared = props[settingId(name)];
      assert.equal(entry.scope === 'machine', declared.scope === 'machine', `${name}: scope machine in both or neither`);
      if (entry.oneOf) {
        assert.deepEqual([...entry.oneOf], declared.enum, `${name}: the same choices`);
      }
      if (declared.minimum !== undefined) {
        assert.ok(entry.min !== undefined && entry.min <= declared.minimum, `${name}: the code accepts what the Settings UI allows`);
      }
    }
  });
});
