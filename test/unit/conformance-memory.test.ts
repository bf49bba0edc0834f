/**
 * Conformance over real users' files (issue 9), the memory part: every progress.txt and Pin in
 * ../shared/fixtures/real (copied unchanged from public repositories, see SOURCES.md there).
 * A clone without that folder gets one pending test that says why.
 *
 * progress.txt, compacted with the default settings and with everything summarised: no crash,
 * every learning the parser reads survives in the compacted file, the header and the Codebase
 * Patterns section are byte-identical, a second compaction changes nothing.
 * Pins: they parse; modules carry their line; a file without module entries says so.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parsePin, pinFormatNote } from '../../src/core/pin/format';
import { planCompaction } from '../../src/core/progress/compact';
import { decodeText, learningsByStory, parseProgress, splitLines } from '../../src/core/progress/parse';

const real = path.resolve(__dirname, '../../../shared/fixtures/real');
const progressDir = path.join(real, 'progress');
const pinDir = path.join(real, 'pin');
const now = new Date(2026, 10, 20, 9, 0);

/**
 * An independent reading of the learnings (not the parser's): every bullet after a line that names
 * learnings, lessons, notes, gotchas, insights, takeaways or caveats, up to the first line that is
 * neither a bullet nor blank.
 */
const LEARNING_LABEL = /^\s*(?:[-*+]\s+)?(?:\*\*|__|#+\s*)?\s*(?:key\s+|important\s+)?(?:learnings?|lessons?|notes?|gotchas?|insights?|takeaways?|caveats?)\b[^:]*:?\s*(?:\*\*|__)?\s*:?\s*$/i;
function labelledBullets(text: string): string[] {
  const lines = text.split(/\r\n|\n|\r/);
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!LEARNING_LABEL.test(lines[i])) {
      continue;
    }
    for (let j = i + 1; j < lines.length; j++) {
      const m = /^\s*[-*+]\s+(.*\S)\s*$/.exec(lines[j]);
      if (!m) {
        if (lines[j].trim() === '') {
          continue;
        }
        break;
      }
      out.push(m[1]);
    }
  }
  return out;
}

function files(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => !f.startsWith('.')).sort() : [];
}

describe('conformance: real progress.txt files and Pins', function () {
  this.timeout(120_000);
  if (!existsSync(real)) {
    it(`skipped: ${real} does not exist (the corpus of real files is not part of a clone; CI has it)`);
    return;
  }
  const totals = { bullets: 0, files: 0, compactions: 0, changed: 0, learnings: 0, kept: 0, entriesBefore: 0, entriesAfter: 0, linesBefore: 0, linesAfter: 0 };
  const pins = { files: 0, modules: 0, otherFormat: 0 };

  for (const name of files(progressDir)) {
    it(`progress: ${name}`, () => {
      const text = decodeText(readFileSync(path.join(progressDir, name)));
      const doc = parseProgress(text);
      const learnings = learningsByStory(doc).flatMap((g) => g.learnings.map((l) => l.text.trim()).filter((l) => l !== ''));
      const bullets = labelledBullets(text);
      totals.files++;
      const { lines, starts } = splitLines(text);
      const firstSection = doc.sections.find((s) => s.kind === 'entry' || s.kind === 'compacted');
      const prefix = firstSection ? text.slice(0, starts[firstSection.line]) : text;
      const patterns = doc.patterns ? lines.slice(doc.patterns.line, doc.patterns.endLine).join('\n') : undefined;
      for (const options of [{}, { threshold: 0, keepRecentLines: 0 }]) {
        const once = planCompaction(text, { ...options, now });
        totals.compactions++;
        totals.learnings += learnings.length;
        totals.linesBefore += once.linesBefore;
        totals.linesAfter += once.linesAfter;
        totals.entriesBefore += doc.entries.length;
        if (once.changed) {
          totals.changed++;
        }
        const outLines = new Set(splitLines(once.text).lines.map((l) => l.trim().replace(/^(?:[-*+•]|\d{1,3}[.)])\s+/, '').trim()));
        for (const l of learnings) {
          assert.ok(outLines.has(l) || once.text.includes(l), `${name}: learning lost: ${JSON.stringify(l)}`);
          totals.kept++;
        }
        for (const b of bullets) {
          assert.ok(once.text.includes(b), `${name}: bullet under a learnings label lost: ${JSON.stringify(b)}`);
        }
        totals.bullets += bullets.length;
        assert.ok(once.text.startsWith(prefix), `${name}: the header changed`);
        if (patterns !== undefined) {
          assert.ok(once.text.includes(patterns), `${name}: the Codebase Patterns section changed`);
        }
        totals.entriesAfter += parseProgress(once.text).entries.length;
        const twice = planCompaction(once.text, { ...options, now: new Date(2027, 0, 1) });
        assert.equal(twice.changed, false, `${name}: a second compaction changed it again (${twice.reason})`);
      }
    });
  }

  for (const name of files(pinDir)) {
    it(`pin: ${name}`, () => {
      const text = decodeText(readFileSync(path.join(pinDir, name)));
      const doc = parsePin(text);
      pins.files++;
      pins.modules += doc.modules.length;
      for (const m of doc.modules) {
        assert.ok(m.line !== undefined && m.line >= 0, `${name}: module "${m.name}" has no line`);
        assert.ok(m.spec === undefined || !/\s/.test(m.spec), `${name}: module "${m.name}" has a prose spec ${JSON.stringify(m.spec)}`);
      }
      const note = pinFormatNote(doc, 'specs/INDEX.md');
      if (doc.modules.length === 0) {
        pins.otherFormat++;
        assert.match(note ?? '', /^no `### Module` entries found in specs\/INDEX\.md/);
      }
    });
  }

  after(() => {
    process.stdout.write(
      `\n      conformance (memory): ${totals.files} progress.txt files, ${totals.compactions} compactions (${totals.changed} changed the file): ` +
        `${totals.kept}/${totals.learnings} learnings kept (and ${totals.bullets} bullets under a learnings label, read independently), entries ${totals.entriesBefore} → ${totals.entriesAfter}, lines ${totals.linesBefore} → ${totals.linesAfter}; ` +
        `${pins.files} Pins: ${pins.modules} modules, ${pins.otherFormat} in another format\n`,
    );
  });
});
