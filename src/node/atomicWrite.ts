/** Atomic file replacement for Node callers (the CLI and the extension host): write-file-atomic. */
import writeFileAtomic from 'write-file-atomic';

/**
 * Replaces a file's content atomically (temp file in the same folder, fsync, rename), keeping its
 * mode. Readers see the old or the new content, never a mix.
 */
export async function writeFileAtomically(file: string, data: string | Uint8Array): Promise<void> {
  await writeFileAtomic(file, typeof data === 'string' ? data : Buffer.from(data));
}

export function writeFileAtomicallySync(file: string, data: string | Uint8Array): void {
  writeFileAtomic.sync(file, typeof data === 'string' ? data : Buffer.from(data));
}
