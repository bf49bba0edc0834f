// Benchmark of the receipt reader (src/core/insights/receipts.ts) on a large stream-json log:
//   node --expose-gc scripts/bench-receipts.mjs [--mb 10,50]
// Builds a Claude Code stream-json transcript of N MB from the real fixture's lines (its result
// line last), feeds it in 64 KiB chunks as an executor would, and prints the time (ms per MB, to
// show it is linear) and the heap the reader kept (constant: it holds one line at most), beside a
// baseline measured in the same run: splitting the same chunks into lines and JSON.parse of every
// line (what a reader that parsed everything would pay). It only prints: nothing fails the build.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const mbs = (args.includes('--mb') ? args[args.indexOf('--mb') + 1] : '10,50').split(',').map(Number);
const gc = globalThis.gc ?? (() => undefined);

const out = path.join(os.tmpdir(), `ralph-bench-receipts-${process.pid}.cjs`);
await esbuild.build({
  stdin: { contents: "export { receiptReaderFor } from './src/core/insights/receipts';", resolveDir: root, loader: 'ts', sourcefile: 'bench-receipts-entry.ts' },
  outfile: out,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
});
const { receiptReaderFor } = createRequire(import.meta.url)(out);

const lines = readFileSync(path.join(root, 'test/fixtures/agent-output/claude/stream-json.jsonl'), 'utf8').trimEnd().split('\n');
const body = lines.slice(0, -1).join('\n') + '\n';
const result = `${lines[lines.length - 1]}\n`;

function* chunks(totalBytes) {
  // The transcript, built chunk by chunk (never whole in memory): the middle lines repeated, the result last.
  let pending = '';
  let made = 0;
  while (made < totalBytes) {
    pending += body;
    made += body.length;
    while (pending.length >= 65536) {
      yield pending.slice(0, 65536);
      pending = pending.slice(65536);
    }
  }
  pending += result;
  for (let i = 0; i < pending.length; i += 65536) {
    yield pending.slice(i, i + 65536);
  }
}

function time(fn) {
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const value = fn();
  const ms = performance.now() - t0;
  return { ms, value, heapMb: (process.memoryUsage().heapUsed - heap0) / 1e6 };
}

console.log(`node ${process.version}, ${os.availableParallelism?.() ?? os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}${globalThis.gc ? '' : ' (run with --expose-gc for the heap figures)'}`);
// A warm-up (the JIT, zod's first parses), not reported.
{
  const r = receiptReaderFor('claude');
  for (const c of chunks(2 * 1024 * 1024)) r.push(c);
  r.end();
}
for (const mb of mbs) {
  const bytes = mb * 1024 * 1024;
  const reader = time(() => {
    const r = receiptReaderFor('claude');
    let maxHeap = 0;
    let n = 0;
    for (const c of chunks(bytes)) {
      r.push(c);
      if (++n % 64 === 0) {
        maxHeap = Math.max(maxHeap, process.memoryUsage().heapUsed);
      }
    }
    return { receipt: r.end(), maxHeap };
  });
  const baseline = time(() => {
    let partial = '';
    let parsed = 0;
    for (const c of chunks(bytes)) {
      const parts = (partial + c).split('\n');
      partial = parts.pop() ?? '';
      for (const l of parts) {
        JSON.parse(l);
        parsed++;
      }
    }
    return parsed;
  });
  const ok = reader.value.receipt.receipt === 'parsed' && reader.value.receipt.cost === 0.033231000000000004;
  console.log(
    `${String(mb).padStart(3)} MB stream-json: receipt reader ${reader.ms.toFixed(0)} ms (${(reader.ms / mb).toFixed(1)} ms/MB), heap kept ${reader.heapMb.toFixed(1)} MB, receipt ${ok ? 'right' : 'WRONG'}; ` +
      `baseline split + JSON.parse of every line ${baseline.ms.toFixed(0)} ms (${(baseline.ms / mb).toFixed(1)} ms/MB); reader/baseline ${(reader.ms / baseline.ms).toFixed(2)}×`,
  );
}
