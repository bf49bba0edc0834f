/** The settings table (src/core/settingKeys.ts) and package.json declare the same keys with the same defaults. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SETTING_KEYS, settingId } from '../../src/core/settingKeys';

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
