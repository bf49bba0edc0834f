/** AGENTS.md helpers: skeleton, headings, inserting notes, finding the nearest file. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AGENTS_MD_SECTIONS, agentsMdSkeleton, findSection, insertNote, listHeadings, nearestAgentsMd } from '../../src/core/agentsMd';
import { applyTextEdits } from '../../src/core/progress/edits';

const demo = readFileSync(path.join(__dirname, '../../examples/demo/AGENTS.md'), 'utf8');

describe('AGENTS.md', () => {
  it('has a skeleton with the five sections', () => {
    const s = agentsMdSkeleton('Auth module');
    assert.ok(s.startsWith('# Auth module\n\n## Overview\n'));
    assert.deepEqual(
      listHeadings(s)
        .filter((h) => h.level === 2)
        .map((h) => h.text),
      [...AGENTS_MD_SECTIONS],
    );
    assert.ok(agentsMdSkeleton('X', '\r\n').includes('\r\n## Patterns\r\n'));
  });

  it('lists headings with their lines and section ends, ignoring code fences', () => {
    const hs = listHeadings(demo);
    assert.deepEqual(
      hs.map((h) => [h.text, h.level]),
      [
        ['TaskFlow', 1],
        ['Overview', 2],
        ['Patterns', 2],
        ['Gotchas', 2],
        ['Dependencies', 2],
        ['Testing', 2],
      ],
    );
    const lines = demo.split('\n');
    assert.equal(lines[hs[3].line], '## Gotchas');
    assert.equal(hs[3].endLine, hs[4].line);
    assert.equal(hs[0].endLine, lines.length - 1);
    assert.deepEqual(listHeadings('```\n# not\n```\n## yes\n').map((h) => h.text), ['yes']);
  });

  it('appends a note at the end of a section, in its bullet style', () => {
    const out = applyTextEdits(demo, insertNote(demo, 'gotchas', 'Restart the dev server after changing .env'));
    const lines = out.split('\n');
    const i = lines.indexOf('- Restart the dev server after changing .env');
    assert.ok(i > 0);
    assert.match(lines[i - 1], /^- Priority values are also enforced/);
    assert.equal(lines[i + 1], '');
    assert.equal(lines[i + 2], '## Dependencies');
    assert.equal(out.length, demo.length + '- Restart the dev server after changing .env\n'.length);
  });

  it('appends to the last section and writes multi-line notes as one bullet', () => {
    const out = applyTextEdits(demo, insertNote(demo, 'Testing', 'Run e2e\nwith the dev server up'));
    assert.ok(out.endsWith('- Run e2e\n  with the dev server up\n'));
    const noEol = 'x\n## Testing\n- a';
    assert.equal(applyTextEdits(noEol, insertNote(noEol, 'Testing', 'b')), 'x\n## Testing\n- a\n- b');
  });

  it('creates a missing section at the end, and works for files without headings', () => {
    const t = '# Mod\n\n## Overview\nThings.\n';
    assert.equal(applyTextEdits(t, insertNote(t, 'Gotchas', 'careful')), '# Mod\n\n## Overview\nThings.\n\n## Gotchas\n- careful\n');
    assert.equal(applyTextEdits('plain notes', insertNote('plain notes', 'Patterns', 'p')), 'plain notes\n\n## Patterns\n- p\n');
    assert.equal(applyTextEdits('', insertNote('', 'Patterns', 'p')), '## Patterns\n- p\n');
    const crlf = '# A\r\n\r\n## Patterns\r\n- a\r\n';
    assert.equal(applyTextEdits(crlf, insertNote(crlf, 'Patterns', 'b')), '# A\r\n\r\n## Patterns\r\n- a\r\n- b\r\n');
  });

  it('finds sections by name, case and decoration ignored', () => {
    assert.equal(findSection('## **Gotchas:**\n- x\n', 'gotchas')?.line, 0);
    assert.equal(findSection('## Testing notes\n', 'Testing')?.line, 0);
    assert.equal(findSection('## Testing\n', ''), undefined);
  });

  it('finds the nearest AGENTS.md up to the root', () => {
    const have = new Set(['/r/AGENTS.md', '/r/src/api/AGENTS.md']);
    const exists = (p: string) => have.has(p);
    assert.equal(nearestAgentsMd('/r/src/api/x/y.ts', exists, '/r'), '/r/src/api/AGENTS.md');
    assert.equal(nearestAgentsMd('/r/src/web/a.ts', exists, '/r'), '/r/AGENTS.md');
    assert.equal(nearestAgentsMd('/r/src/api', exists, '/r', true), '/r/src/api/AGENTS.md');
    assert.equal(nearestAgentsMd('/elsewhere/a.ts', exists, '/r'), undefined);
    assert.equal(nearestAgentsMd('/r/a.ts', () => false, '/r/'), undefined);
    assert.equal(nearestAgentsMd('C:\\r\\src\\a.ts', (p) => p === 'C:\\r\\AGENTS.md', 'C:\\r'), 'C:\\r\\AGENTS.md');
    // Never above the root.
    assert.equal(nearestAgentsMd('/r/sub/a.ts', (p) => p === '/AGENTS.md', '/r'), undefined);
  });
});
