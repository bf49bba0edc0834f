// Benchmark of GitHub comment parsing (issue 16, item 8): the Artifact Comment Protocol reads
// text from anyone on the extension host's thread, so it must be linear.
//   node scripts/bench-github.mjs [--runs N]
// Figures (median of N runs after a warm-up), each beside a same-run baseline (counting the
// lines of the same text with indexOf): a 1 MB comment (target < 50 ms; GitHub's limit is 65,536
// characters, so it is read up to there, and the same megabyte as 16 full comments is timed
// too), 10,000 comments of 5 KB
// (target < 1 s), and the 65,000-character hostile comment of the issue (a VERDICT line of
// spaces; it took 14.6 s before), with the expression of that time run on 8,000 characters
// for comparison. It only prints.
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : 11;

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ralph-bench-github-'));
try {
  const out = path.join(tmp, 'protocol.cjs');
  await esbuild.build({
    entryPoints: [path.join(root, 'src/core/artifacts/protocol.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: out,
    logLevel: 'warning',
  });
  const { parseArtifactComment, scanComments } = createRequire(import.meta.url)(out);

  const median = (fn) => {
    // Warm up until the JIT has settled (at least 5 runs and 200 ms).
    const warm = performance.now();
    for (let i = 0; i < 5 || performance.now() - warm < 200; i++) {
      fn();
    }
    const times = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      fn();
      times.push(performance.now() - t);
    }
    return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
  };
  const ms = (x) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;
  const row = (what, t, base, target) =>
    console.log(`${what.padEnd(44)} ${ms(t).padStart(10)}   baseline ${ms(base).padStart(9)} (${(t / base).toFixed(1)}×)${target ? `   target < ${target} ms: ${t < target ? 'met' : 'NOT met'}` : ''}`);
  // The baseline: counting the lines of the same text with indexOf (V8 caches split() results).
  const lineCount = (text) => {
    let n = 0;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
      n++;
    }
    return n;
  };

  const blob = (p) => `https://github.com/acme/taskflow/blob/main/${p}`;
  // Comment-like text: a header, the URL, then paragraphs with links, quotes, code and HTML.
  const filler = (size, seed) => {
    const lines = [`## Plan Review`, '', `VERDICT: APPROVED`, '', blob(`thoughts/shared/reviews/2026-11-16-GH-${seed}-critique.md`)];
    const kinds = [
      (i) => `Phase ${i}: see [the plan](${blob(`thoughts/shared/plans/p${i}.md`)}) and https://example.com/${i}.`,
      (i) => `> quoted reply ${i} with **bold** and \`code ${i}\``,
      (i) => `<!-- note ${i} https://hidden.example/${i} -->`,
      (i) => `- item ${i} <a href="https://x.example/${i}">link</a> ${'word '.repeat(8)}`,
      () => '',
    ];
    let n = lines.join('\n').length;
    for (let i = 0; n < size; i++) {
      const l = kinds[i % kinds.length](i);
      lines.push(l);
      n += l.length + 1;
    }
    return lines.join('\n').slice(0, size);
  };

  console.log(`GitHub comment parsing (node ${process.version}, median of ${RUNS})`);
  const mb = filler(1024 * 1024, 1);
  row('1 MB comment (read up to GitHub\'s 65,536)', median(() => parseArtifactComment({ id: 1, body: mb })), median(() => lineCount(mb)), 50);
  // The same megabyte as 16 comments of GitHub's largest size, every character read.
  const sixteen = Array.from({ length: 16 }, (_, i) => mb.slice(i * 65_536, (i + 1) * 65_536));
  row('1 MB as 16 comments of 65,536 characters', median(() => sixteen.forEach((body, i) => parseArtifactComment({ id: i, body }))), median(() => sixteen.forEach(lineCount)), 50);

  const comments = Array.from({ length: 10_000 }, (_, i) => ({ id: i + 1, body: filler(5 * 1024, i), created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString() }));
  row('10,000 comments of 5 KB (scanComments)', median(() => scanComments(comments)), median(() => comments.forEach((c) => lineCount(c.body))), 1000);

  const hostile = `## Plan Review\n\nverdict${' '.repeat(65_000 - 24)}x`;
  row('65,000-character hostile comment', median(() => parseArtifactComment({ id: 1, body: hostile })), median(() => lineCount(hostile)));
  // The verdict expression of before issue 16 on 8,000 characters of the same line (quadratic:
  // 65,000 characters cost about 66 times this).
  const OLD_VERDICT_RE = new RegExp(String.raw`^\W*verdict\W*:?\W*(approved|needs[_ ]iteration)\b`, 'i');
  const old = `verdict${' '.repeat(8000)}x`;
  const t = performance.now();
  OLD_VERDICT_RE.exec(old.trim());
  const oldMs = performance.now() - t;
  console.log(`${'  before: its verdict expression, 8,000 chars'.padEnd(44)} ${ms(oldMs).padStart(10)}   (× ${((65_000 / 8000) ** 2).toFixed(0)} at 65,000 ≈ ${(oldMs * (65_000 / 8000) ** 2 / 1000).toFixed(1)} s)`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
