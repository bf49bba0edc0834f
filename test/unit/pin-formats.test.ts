/** The Pin as people write it (issue 9 item 8): spec values that mean "no spec", INDEX.md in other formats. */
import assert from 'node:assert/strict';
import { parsePin, pinFormatNote, writePin } from '../../src/core/pin/format';
import { generatePin } from '../../src/core/pin/generate';

const moduleWith = (spec: string) => `# The Pin\n\n## Agent System\n**Keywords**: agent loop\n**File Paths**:\n- \`ralph.sh\` - Main loop\n\n**Spec Link**: ${spec}\n`;

describe('the Pin as people write it', () => {
  for (const spec of ['N/A', 'n/a', 'none', 'None', '-', '—', 'TBD', 'See README.md and AGENTS.md']) {
    it(`reads "Spec: ${spec}" as no spec, not a missing file`, () => {
      const doc = parsePin(moduleWith(spec));
      assert.equal(doc.modules.length, 1);
      assert.equal(doc.modules[0].spec, undefined);
      // Written back unchanged.
      assert.equal(writePin(doc), moduleWith(spec));
    });
  }

  it('still reads a spec path', () => {
    assert.equal(parsePin(moduleWith('specs/agent.md')).modules[0].spec, 'specs/agent.md');
    assert.equal(parsePin(moduleWith('[agent](specs/agent.md)')).modules[0].spec, 'specs/agent.md');
  });

  const table =
    '# Spec Index\n\nSingle source of truth.\n\n| Spec ID | Feature | File |\n|---|---|---|\n| SPEC-01 | Blast radius | [x](cross/SPEC-01.md) |\n';
  const checklist = '# Specs\n\n### Backend\n\n- [x] `specs/backend.md` — Runtime setup\n- [ ] `specs/db.md` — Database\n';

  it('says that an INDEX.md in another format has no "### Module" entries', () => {
    for (const text of [table, checklist]) {
      const doc = parsePin(text);
      assert.equal(doc.modules.length, 0);
      assert.equal(
        pinFormatNote(doc, 'specs/INDEX.md'),
        'no `### Module` entries found in specs/INDEX.md (it is written in another format); Generate the Pin adds module entries and keeps what is there.',
      );
    }
    assert.equal(pinFormatNote(parsePin(moduleWith('N/A')), 'specs/INDEX.md'), undefined);
    assert.equal(pinFormatNote(parsePin(''), 'specs/INDEX.md'), undefined);
  });

  it('Generate the Pin adds entries to such a file without destroying what is there', () => {
    for (const text of [table, checklist]) {
      const doc = generatePin(['src/api/handler.ts', 'src/db/schema.ts'], () => 'export function handleRequest() {}\n', parsePin(text));
      const out = writePin(doc);
      assert.ok(out.startsWith(text.replace(/\n$/, '')), out);
      assert.ok(doc.modules.length >= 1);
      assert.ok(parsePin(out).modules.length >= 1);
    }
  });
});
