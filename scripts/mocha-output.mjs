// What mocha's epilogue says, read from a tier's printed output: the counts for the tier's line and
// the failures for the summary (scripts/test.mjs). Colours are stripped first.

const stripAnsi = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');

/** Counts from mocha's epilogue ("12 passing", "1 failing", "2 pending"). */
export function mochaCounts(out) {
  const text = stripAnsi(out);
  const num = (re) => {
    const all = [...text.matchAll(re)];
    return all.length ? Number(all[all.length - 1][1]) : 0;
  };
  return { passes: num(/^\s*(\d+) passing/gm), failures: num(/^\s*(\d+) failing/gm), pending: num(/^\s*(\d+) pending/gm) };
}

/**
 * The failures listed in mocha's epilogue, one line each ("1) <suite> <test>: <first line of the
 * error>"), for the summary: the end of a long CI log is what its reader sees first.
 */
export function mochaFailures(out) {
  const text = stripAnsi(out);
  const epilogue = /^\s*\d+ failing\s*$/m.exec(text);
  if (!epilogue) return [];
  const lines = text.slice(epilogue.index + epilogue[0].length).split('\n');
  const found = [];
  // mocha's list: "  N) <suite>" at two spaces, N counting up from 1; the rest of the title on
  // lines indented further, the last one ending with ':'; then the error's first line.
  for (let i = 0; i < lines.length; i++) {
    const m = /^ {2}(\d+)\) (.*)$/.exec(lines[i]);
    if (!m || Number(m[1]) !== found.length + 1) continue;
    let title = m[2].trim();
    let j = i;
    while (!title.endsWith(':') && j + 1 < lines.length && /^ {3,}\S/.test(lines[j + 1])) title += ` ${lines[++j].trim()}`;
    const error = lines.slice(j + 1).find((l) => l.trim() !== '')?.trim() ?? '';
    const line = `${m[1]}) ${title} ${error}`;
    found.push(line.length > 400 ? `${line.slice(0, 399)}…` : line);
    i = j;
  }
  return found;
}
