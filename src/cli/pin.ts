/** The work of `ralph-workbench pin`: the Pin generated for a repository (arguments in memory.ts). */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parsePin, pinFormatNote, type PinModule } from '../core/pin/format';
import { writeFileAtomicallySync } from '../node/atomicWrite';
import { generateRepoPin } from '../node/pinRepo';
import type { MemoryArgs, MemoryIo } from './memory';


function moduleJson(m: PinModule): object {
  return { name: m.name, description: m.description.join('\n'), keywords: m.keywords, files: m.files, spec: m.spec ?? null, line: m.line ?? null };
}

export async function pin(args: MemoryArgs, io: MemoryIo): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const root = path.resolve(cwd, args.options.get('--root') ?? '.');
  try {
    if (!statSync(root).isDirectory()) {
      io.stderr(`ralph-workbench pin: ${root} is not a folder.\n`);
      return 1;
    }
  } catch {
    io.stderr(`ralph-workbench pin: no such folder ${root}.\n`);
    return 1;
  }
  const pinRel = args.options.get('--pin') ?? 'specs/INDEX.md';
  const pinAbs = path.resolve(root, pinRel);
  const { doc, text, existingText, source, files, added, updated, stale } = await generateRepoPin(root, pinAbs);
  const shown = path.relative(cwd, pinAbs) || pinRel;
  const formatNote = existingText !== undefined ? pinFormatNote(parsePin(existingText), shown) : undefined;
  if (formatNote) {
    io.stderr(`ralph-workbench pin: ${formatNote}\n`);
  }
  if (source === 'walk') {
    io.stderr(`ralph-workbench pin: ${root} is not a git repository (or git is not installed); listing files with a folder walk that honours .gitignore.\n`);
  }
  const shownPin = path.relative(cwd, pinAbs) || pinRel;
  if (args.flags.has('--json')) {
    io.stdout(
      `${JSON.stringify({ pin: shownPin, source, files: files.length, modules: doc.modules.map(moduleJson), added, updated, changed: text !== existingText, stale })}\n`,
    );
  } else if (!args.flags.has('--write')) {
    io.stdout(text);
  }
  for (const s of stale) {
    io.stderr(`ralph-workbench pin: ${shownPin}: module "${s.module}" lists ${s.file}, which is not among the repository's files.\n`);
  }
  if (args.flags.has('--write')) {
    if (text === existingText) {
      io.stdout(`${shownPin} is up to date (${doc.modules.length} modules, ${files.length} files from ${source === 'git' ? 'git ls-files' : 'a folder walk'}).\n`);
      return 0;
    }
    mkdirSync(path.dirname(pinAbs), { recursive: true });
    writeFileAtomicallySync(pinAbs, text);
    io.stdout(`Wrote ${shownPin}: ${doc.modules.length} modules (${added} added, ${updated} updated), ${files.length} files from ${source === 'git' ? 'git ls-files' : 'a folder walk'}.\n`);
  } else if (!args.flags.has('--json')) {
    io.stderr(`ralph-workbench pin: ${doc.modules.length} modules (${added} new, ${updated} updated) from ${files.length} files; --write saves it to ${shownPin}.\n`);
  }
  return 0;
}
