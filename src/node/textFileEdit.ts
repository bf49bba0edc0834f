/**
 * A minimal edit of a user's text file outside VS Code (the CLI; the extension uses
 * services/fileEdits.ts): the edits are computed on the file as read, the file is read again just
 * before the write and, when someone changed it meanwhile, computed again on the new text; the
 * write replaces the file atomically, so a reader never sees half of it.
 */
import { readFile } from 'node:fs/promises';
import { applyEdits, type TextEdit } from '../core/textEdit';
import { writeFileAtomically } from './atomicWrite';

/** 'unchanged' when the edits are empty (nothing to write). */
export async function editFileAtomically(file: string, compute: (text: string) => readonly TextEdit[]): Promise<'edited' | 'unchanged'> {
  for (let attempt = 0; ; attempt++) {
    const text = await readFile(file, 'utf8');
    const edits = compute(text);
    if (edits.length === 0) {
      return 'unchanged';
    }
    const now = await readFile(file, 'utf8');
    if (now !== text && attempt < 3) {
      continue;
    }
    await writeFileAtomically(file, applyEdits(now, now === text ? edits : compute(now)));
    return 'edited';
  }
}
