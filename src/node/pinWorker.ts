/** Worker-thread entry (bundled as dist/pinWorker.js): generates the Pin off the extension host's thread. */
import { parentPort, workerData } from 'node:worker_threads';
import { generateRepoPin, type PinWorkerMessage } from './pinRepo';

const { root, pinFile } = workerData as { root: string; pinFile: string };
generateRepoPin(root, pinFile).then(
  (pin) => parentPort?.postMessage({ ok: true, pin } satisfies PinWorkerMessage),
  (e: unknown) => parentPort?.postMessage({ ok: false, message: e instanceof Error ? e.message : String(e) } satisfies PinWorkerMessage),
);
