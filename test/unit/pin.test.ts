/**
 * The Pin (specs/INDEX.md): parser and writer (byte-identical round trips, hand-written
 * variations), matching, the generator on a fixture repository (modules, keywords, package
 * boundaries, skipped folders), merging (idempotence, hand edits kept) and the `pin` CLI command.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { walkFiles } from '../../src/node/pinRepo';
import { cleanPath, keywordsOf, matchPin, parsePin, splitWords, stem, writePin } from '../../src/core/pin/format';
import { generatePin, normaliseRepoPath, packageOfSpecifier, planModules, scanSource, stalePinFiles } from '../../src/core/pin/generate';
import { cliAsync, type CliRun } from './helpers';

const demoPin = readFileSync(path.join(__dirname, '../../examples/demo/specs/INDEX.md'), 'utf8');

const handWritten = [
  '# Pin for Acme',
  '',
  'Read me first.',
  '',
  '```',
  '## Example (not a module)',
  'Keywords: nope',
  '```',
  '',
  '### Auth',
  'Handles login and sessions.',
  'Second description line.',
  '**Keywords:** login, JWT, session',
  '- Files:',
  '  - `src/auth/login.ts` — the login handler',
  '  - src/auth/session.ts',
  '- Spec: [auth spec](specs/auth.md)',
  'Owner: team-a',
  '',
  '### Billing',
  'keywords: invoice, stripe,',
  '  payment, refund',
  'FILES: src/billing/',
  'Specs: specs/billing.md',
  '',
].join('\n');

describe('Pin format', () => {
  it('parses the demo Pin', () => {
    const doc = parsePin(demoPin);
    assert.equal(doc.modules.length, 7);
    assert.equal(doc.preamble[0], '# TaskFlow — The Pin');
    const prio = doc.modules[1];
    assert.equal(prio.name, 'Priority Model');
    assert.equal(prio.spec, 'specs/priority-model.md');
    assert.deepEqual(prio.files, ['src/shared/priority.ts', 'src/api/priority.ts', 'db/migrations/004_add_task_priority.sql', 'src/shared/task.ts']);
    assert.equal(prio.keywords.length, 14);
    assert.match(prio.description[0], /^The high \/ medium \/ low priority/);
    assert.equal(prio.line, demoPin.split('\n').indexOf('## Priority Model'));
  });

  it('writes a parsed file back byte-identical (LF, CRLF, no final line end)', () => {
    for (const t of [demoPin, demoPin.replace(/\n/g, '\r\n'), demoPin.trimEnd(), handWritten, '', '# Only a title\n']) {
      assert.equal(writePin(parsePin(t)), t);
    }
  });

  it('reads hand-written variations and keeps their unknown lines', () => {
    const doc = parsePin(handWritten);
    assert.deepEqual(
      doc.modules.map((m) => m.name),
      ['Auth', 'Billing'],
    );
    assert.equal(doc.moduleLevel, 3);
    const [auth, billing] = doc.modules;
    assert.deepEqual(auth.description, ['Handles login and sessions.', 'Second description line.']);
    assert.deepEqual(auth.keywords, ['login', 'JWT', 'session']);
    assert.deepEqual(auth.files, ['src/auth/login.ts', 'src/auth/session.ts']);
    assert.equal(auth.spec, 'specs/auth.md');
    assert.deepEqual(billing.keywords, ['invoice', 'stripe', 'payment', 'refund']);
    assert.deepEqual(billing.files, ['src/billing/']);
    assert.equal(billing.spec, 'specs/billing.md');
  });

  it('rewrites only the changed field, in the style of the file', () => {
    const doc = parsePin(handWritten);
    doc.modules[0].keywords.push('oauth');
    doc.modules[0].files.push('src/auth/oauth.ts');
    doc.modules[1].spec = undefined;
    doc.modules.push({ name: 'Search', description: ['Full-text search.'], keywords: ['search'], files: ['src/search.ts'] });
    const out = writePin(doc);
    assert.ok(out.includes('**Keywords:** login, JWT, session, oauth\n'));
    assert.ok(out.includes('  - `src/auth/login.ts` — the login handler\n  - src/auth/session.ts\n  - `src/auth/oauth.ts`\n'));
    assert.ok(out.includes('Owner: team-a\n'));
    assert.ok(!out.includes('Specs: specs/billing.md'));
    assert.ok(out.endsWith('\n### Search\nFull-text search.\nKeywords: search\nFiles: src/search.ts\n'));
    const again = parsePin(out);
    assert.deepEqual(again.modules[0].keywords, ['login', 'JWT', 'session', 'oauth']);
    assert.equal(again.modules[1].spec, undefined);
    assert.equal(again.modules[2].name, 'Search');
  });

  it('round-trips random modules (property)', () => {
    const value = fc.constantFrom('alpha', 'beta', 'src/a.ts', 'b c', 'GET /api', 'x-y', 'z_z');
    const mod = fc.record({
      name: fc.constantFrom('Auth', 'Billing', 'src/api', '(root)', 'Search UI'),
      description: fc.array(fc.constantFrom('One line.', 'Another: line.'), { maxLength: 2 }),
      keywords: fc.uniqueArray(value, { maxLength: 5 }),
      files: fc.uniqueArray(fc.constantFrom('src/a.ts', 'src/b/', 'lib/x y.py', 'db/m.sql'), { maxLength: 4 }),
      spec: fc.option(fc.constantFrom('specs/a.md', 'specs/b.md'), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(mod, { maxLength: 6 }), (mods) => {
        const doc = { preamble: ['# Pin', ''], modules: mods, eol: '\n' as const, finalEol: true, moduleLevel: 2 };
        const text = writePin(doc);
        const back = parsePin(text);
        assert.equal(writePin(back), text);
        assert.deepEqual(
          back.modules.map((m) => [m.keywords, m.files, m.spec]),
          mods.map((m) => [m.keywords, m.files, m.spec]),
        );
      }),
      { numRuns: 100 },
    );
  });
});

describe('Pin matching', () => {
  it('splits words, drops stop-words and stems plurals', () => {
    assert.deepEqual(splitWords('TaskEditDialog priority-model_v2 HTTPServer'), ['task', 'edit', 'dialog', 'priority', 'model', 'v2', 'http', 'server']);
    assert.deepEqual(keywordsOf('As a user, I want to filter the Tasks by priorities'), ['filter', 'task', 'priority']);
    assert.equal(stem('categories'), 'category');
    assert.equal(stem('boxes'), 'box');
    assert.equal(stem('status'), 'status');
    assert.equal(stem('class'), 'class');
  });

  it('ranks modules by keyword, name and file-path matches', () => {
    const doc = parsePin(demoPin);
    const m = matchPin(doc, 'Priority filter on the task list. As a user, I want to show only high priority tasks.');
    assert.equal(m[0].module.name, 'Priority Model');
    assert.ok(m.slice(0, 4).some((x) => x.module.name === 'Filters'));
    assert.ok(m[0].matched.includes('priority'));
    const audit = matchPin(doc, ['Record', 'priority', 'changes', 'in', 'the', 'audit', 'history']);
    assert.ok(audit.findIndex((x) => x.module.name === 'Audit Log') <= 1);
    assert.deepEqual(matchPin(doc, 'the and of'), []);
  });
});

// ---------------------------------------------------------------------------------------------

function writeTree(root: string, files: Record<string, string>): void {
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    writeFileSync(path.join(root, p), text);
  }
}

const fixture: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'acme', dependencies: { express: '^4', zod: '^3', react: '^18', 'react-dom': '^18' }, devDependencies: { vitest: '^1' } }),
  '.gitignore': 'generated/\n*.log\n',
  'src/api/users.ts': "import express from 'express';\nimport { z } from 'zod';\nimport { db } from '../db';\nimport fs from 'node:fs';\nexport function createUser() {}\nexport const UserSchema = z.object({});\nexport interface UserRow { id: string }\n",
  'src/api/authMiddleware.ts': "import express from 'express';\nimport { thing } from '@shared/thing';\nexport async function requireAuth() {}\n",
  'src/api/users.test.ts': "import { describe } from 'vitest';\n",
  'src/db/index.ts': 'export class Database {}\n',
  'src/web/components/Button.tsx': "import React from 'react';\nexport default function Button() {}\n",
  'src/web/components/Card.tsx': 'export const Card = 1;\n',
  'src/web/components/Modal.tsx': 'export const Modal = 1;\n',
  'src/web/components/form/Input.tsx': 'export const Input = 1;\n',
  'src/web/main.tsx': "import { createRoot } from 'react-dom/client';\n",
  'packages/ui/package.json': JSON.stringify({ name: '@acme/ui', dependencies: { react: '^18' } }),
  'packages/ui/src/theme.ts': "import React from 'react';\nexport const theme = {};\n",
  'packages/ui/index.ts': "export * from './src/theme';\n",
  'worker/app/models.py': 'import os\nfrom sqlalchemy import Column\nfrom .base import Base\n\nclass UserModel(Base):\n    def save(self):\n        pass\n\ndef load_users():\n    pass\n',
  'svc/go.mod': 'module example.com/svc\n',
  'svc/cmd/server/main.go': 'package main\n\nimport (\n\t"fmt"\n\t"github.com/gin-gonic/gin"\n)\n\nfunc main() {}\nfunc StartServer() {}\ntype Config struct{}\n',
  'node_modules/left-pad/index.js': 'module.exports = 1;\n',
  'dist/bundle.js': 'export const x = 1;\n',
  'archive/old.ts': 'export const old = 1;\n',
  '.ralph/prompt.ts': 'export const p = 1;\n',
  'generated/api.ts': 'export const gen = 1;\n',
  'docs/readme.md': '# Docs\n',
  'debug.log': 'log\n',
};

describe('Pin generation', () => {
  let root: string;
  let files: string[];
  const rf = (p: string) => {
    try {
      return readFileSync(path.join(root, p), 'utf8');
    } catch {
      return undefined;
    }
  };
  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'ralph-pin-'));
    writeTree(root, fixture);
    files = await walkFiles(root);
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('walks the folder honouring .gitignore and skipping vendored folders', () => {
    assert.ok(files.includes('src/api/users.ts'));
    for (const skipped of ['generated/api.ts', 'debug.log', 'node_modules/left-pad/index.js', '.ralph/prompt.ts']) {
      assert.ok(!files.includes(skipped), skipped);
    }
    assert.equal(normaliseRepoPath('dist/bundle.js'), undefined);
    assert.equal(normaliseRepoPath('./src/a.ts'), 'src/a.ts');
  });

  it('groups files into modules by folder, major subfolder and package', () => {
    const mods = planModules(files, rf);
    assert.deepEqual(
      mods.map((m) => m.name),
      ['packages/ui', 'packages/ui/src', 'src/api', 'src/db', 'src/web', 'src/web/components', 'svc/cmd/server', 'worker/app'],
    );
    const comps = mods.find((m) => m.name === 'src/web/components')!;
    assert.ok(comps.files.includes('src/web/components/form/Input.tsx'));
    assert.ok(!mods.some((m) => m.allFiles.some((f) => /^(dist|archive|node_modules)\//.test(f))));
  });

  it('suggests keywords from folder and file names, exports and imported packages', () => {
    const mods = planModules(files, rf);
    const api = mods.find((m) => m.name === 'src/api')!;
    for (const k of ['api', 'express', 'zod', 'vitest', 'createUser', 'UserSchema', 'UserRow', 'requireAuth', 'auth', 'middleware', 'users']) {
      assert.ok(api.keywords.includes(k), `${k} in ${api.keywords.join(', ')}`);
    }
    // Relative imports, node builtins and path aliases are not dependencies.
    assert.ok(!api.keywords.some((k) => ['fs', 'node:fs', '@shared/thing', '../db'].includes(k)));
    const ui = mods.find((m) => m.name === 'packages/ui/src')!;
    assert.ok(ui.keywords.includes('@acme/ui'));
    assert.ok(ui.keywords.includes('react'));
    const py = mods.find((m) => m.name === 'worker/app')!;
    assert.ok(py.keywords.includes('UserModel') && py.keywords.includes('load_users') && py.keywords.includes('sqlalchemy'));
    assert.ok(!py.keywords.includes('os') && !py.keywords.includes('save'));
    const go = mods.find((m) => m.name === 'svc/cmd/server')!;
    assert.ok(go.keywords.includes('StartServer') && go.keywords.includes('Config') && go.keywords.includes('github.com/gin-gonic/gin'));
    assert.ok(!go.keywords.includes('fmt'));
  });

  it('reads exports and imports by regex', () => {
    assert.deepEqual(scanSource('a.ts', "export default class Foo {}\nexport type Bar = 1;\nconst x = require('lodash/fp');\nimport('chalk');\n"), {
      exports: ['Foo', 'Bar'],
      imports: ['lodash', 'chalk'],
    });
    assert.equal(packageOfSpecifier('@scope/pkg/sub'), '@scope/pkg');
    assert.equal(packageOfSpecifier('./x'), undefined);
    assert.equal(packageOfSpecifier('path'), undefined);
    assert.deepEqual(scanSource('lib.rs', 'use serde::Serialize;\nuse crate::x;\npub fn run() {}\npub struct S;\n'), { exports: ['run', 'S'], imports: ['serde'] });
  });

  it('is idempotent: generating again from its own output changes nothing', () => {
    const first = writePin(generatePin(files, rf));
    assert.match(first, /^# The Pin\n/);
    const second = writePin(generatePin(files, rf, parsePin(first)));
    assert.equal(second, first);
  });

  it('keeps hand edits: names, descriptions, keywords, spec links, order, hand-made modules', () => {
    const first = writePin(generatePin(files, rf));
    const edited = first
      .replace('## src/db\nCode in src/db/ (TypeScript).', '## Database access\nOne Database class wraps the pool.')
      .replace(/(## src\/api\n[^\n]*\nKeywords: [^\n]*)/, '$1, REST, endpoints')
      .replace(/(## src\/api\n[^\n]*\nKeywords: [^\n]*\nFiles: [^\n]*)/, '$1\nSpec: specs/api.md')
      .concat('\n## Billing (planned)\nNothing yet; see the plan.\nKeywords: invoice, stripe\n');
    // Move the worker module first.
    const doc0 = parsePin(edited);
    const worker = doc0.modules.findIndex((m) => m.name === 'worker/app');
    doc0.modules.unshift(...doc0.modules.splice(worker, 1));
    const reordered = writePin(doc0);
    const merged = writePin(generatePin(files, rf, parsePin(reordered)));
    assert.equal(merged, reordered);
    const doc = parsePin(merged);
    assert.equal(doc.modules[0].name, 'worker/app');
    assert.ok(doc.modules.some((m) => m.name === 'Database access' && m.description[0] === 'One Database class wraps the pool.'));
    assert.ok(!doc.modules.some((m) => m.name === 'src/db'), 'a renamed module is not generated again');
    const api = doc.modules.find((m) => m.name === 'src/api')!;
    assert.ok(api.keywords.includes('REST') && api.spec === 'specs/api.md');
    assert.ok(doc.modules.some((m) => m.name === 'Billing (planned)'));
  });

  it('does not list again a file that a hand-written module already lists (issue 18 item 8)', () => {
    const hand = ['# Index', '', '## Auth', 'Keywords: login, session', 'Files:', '- `src/api/authMiddleware.ts` — checks the token', '', '## src/web', 'Files: src/web/components/Card.tsx', ''].join('\n');
    const doc = parsePin(writePin(generatePin(files, rf, parsePin(hand))));
    const listing = (file: string) => doc.modules.filter((m) => m.files.map(cleanPath).includes(file)).map((m) => m.name);
    assert.deepEqual(listing('src/api/authMiddleware.ts'), ['Auth']);
    assert.deepEqual(listing('src/web/components/Card.tsx'), ['src/web']);
    // the rest of src/api is still listed by a generated module
    assert.deepEqual(listing('src/api/users.ts'), ['src/api']);
  });

  it('merges with a hand-written INDEX.md in another format, adding only what is missing', () => {
    const hand = [
      '# Acme index',
      '',
      '### API layer',
      '**Keywords:** http, rest',
      '**Files:**',
      '- `src/api/users.ts`',
      '- src/api/authMiddleware.ts',
      '- src/api/users.test.ts',
      '',
      '### src/web',
      '- Keywords: frontend',
      '- Files: src/web/main.tsx',
      '',
    ].join('\n');
    const out = writePin(generatePin(files, rf, parsePin(hand)));
    assert.ok(out.startsWith(hand.slice(0, hand.indexOf('### src/web'))), 'the API layer module is untouched');
    assert.ok(!out.includes('### src/api\n'), 'src/api is covered by the hand-written module');
    const doc = parsePin(out);
    const web = doc.modules.find((m) => m.name === 'src/web')!;
    assert.equal(web.keywords[0], 'frontend');
    assert.ok(web.keywords.includes('react-dom'));
    assert.ok(out.includes('- Keywords: frontend, web,'));
    assert.ok(doc.modules.some((m) => m.name === 'src/db'));
    assert.ok(doc.modules.every((m, i) => i < 2 || m.line! > doc.modules[1].line!));
    assert.equal(doc.moduleLevel, 3);
    assert.ok(out.includes('\n### src/db\n'));
    assert.equal(writePin(generatePin(files, rf, parsePin(out))), out);
  });

  it('reports Files entries that do not exist', () => {
    const doc = parsePin('## A\nFiles: src/api/users.ts, src/gone.ts, src/web/, src/*.ts\n');
    assert.deepEqual(stalePinFiles(doc, files), [{ module: 'A', file: 'src/gone.ts' }]);
  });
});

describe('CLI pin', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'ralph-pin-cli-'));
    writeTree(root, fixture);
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });
  const run = (argv: string[]): Promise<CliRun> => cliAsync(argv, 'disk');

  it('says when the folder is not a git repository, walks it, and writes atomically with --write', async () => {
    const r = await run(['pin', '--root', root]);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /is not a git repository .*folder walk that honours \.gitignore/);
    assert.match(r.stdout, /^# The Pin\n/);
    assert.ok(!r.stdout.includes('generated/'));
    const w = await run(['pin', '--root', root, '--write']);
    assert.equal(w.code, 0);
    assert.match(w.stdout, /Wrote .*specs\/INDEX\.md: 8 modules \(8 added, 0 updated\)/);
    assert.equal(readFileSync(path.join(root, 'specs/INDEX.md'), 'utf8'), r.stdout);
    assert.deepEqual(readdirSync(path.join(root, 'specs')), ['INDEX.md']);
    const again = await run(['pin', '--root', root, '--write']);
    assert.match(again.stdout, /is up to date/);
  });

  it('uses git ls-files in a git repository (untracked but not ignored files too)', async function () {
    if (spawnSync('git', ['--version']).status !== 0) {
      this.skip();
    }
    spawnSync('git', ['init', '-q'], { cwd: root });
    spawnSync('git', ['add', 'src'], { cwd: root });
    const r = await run(['pin', '--root', root, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.source, 'git');
    assert.ok(j.modules.some((m: { name: string }) => m.name === 'worker/app'));
    assert.ok(!j.modules.some((m: { files: string[] }) => m.files.some((f) => f.startsWith('generated/'))));
    assert.ok(statSync(root).isDirectory());
  });
});
