/** Atomic file replacement for Node callers (the CLI and the extension host): write-file-atomic. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a type-only import of a CommonJS `export =` module
import type WriteFileAtomicModule = require('write-file-atomic');
type WriteFileAtomic = typeof WriteFileAtomicModule;

// Loaded on first use: the CLI's hot commands (next, ready) never write, and loading it costs start-up time.
let lib: WriteFileAtomic | undefined;
function writeFileAtomic(): WriteFileAtomic {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  lib ??= require('write-file-atomic') as WriteFileAtomic;
  return lib;
}

/**
 * Replaces a file's content atomically (temp file in the same folder, fsync, rename), keeping its
 * mode. Readers see the old or the new content, never a mix.
 */
export async function writeFileAtomically(file: string, data: string | Uint8Array): Promise<void> {
  await writeFileAtomic()(file, typeof data === 'string' ? data : Buffer.from(data));
}

export function writeFileAtomicallySync(file: string, data: string | Uint8Array): void {
  writeFileAtomic().sync(file, typeof data === 'string' ? data : Buffer.from(data));
}
