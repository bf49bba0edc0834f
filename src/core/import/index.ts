/** Import of another tool's backlog into prd.json stories (issue 22): one module per format, detection, the merge. */
import { importBacklogMd, type SourceFile } from './backlogMd';
import { importBeads } from './beads';
import { detectFormat } from './detect';
import { importKiro } from './kiro';
import { importSpecKit } from './specKit';
import { importTaskmaster } from './taskmaster';
import { ImportError, type ImportFormat, type ImportResult } from './types';

export { detectFormat, KNOWN_FORMATS_TEXT } from './detect';
export { mergeEditsIntoPrd, mergeIntoPrd, type MergeSummary } from './merge';
export { importGitHubIssues, type GitHubIssueInput } from './github';
export type { SourceFile } from './backlogMd';
export * from './types';

export interface ImportOptions {
  /** --format; detected from the (first) file when absent. */
  readonly format?: Exclude<ImportFormat, 'github'>;
  /** Taskmaster: --tag, and the current tag of its state file. */
  readonly tag?: string;
  readonly defaultTag?: string;
}

/** Imports files of one source (a Backlog.md folder is many files; every other format one). */
export function importFiles(files: readonly SourceFile[], options: ImportOptions = {}): ImportResult {
  if (files.length === 0) {
    throw new ImportError('nothing to import: no file.');
  }
  const first = files[0];
  let format = options.format;
  if (!format) {
    const d = detectFormat(first.file, first.text);
    if ('error' in d) {
      throw new ImportError(d.error);
    }
    format = d.format;
  }
  if (format === 'backlog') {
    return importBacklogMd(files);
  }
  if (files.length > 1) {
    throw new ImportError(`a ${format} source is one file; got ${files.length}.`);
  }
  switch (format) {
    case 'spec-kit':
      return importSpecKit(first.text, first.file);
    case 'kiro':
      return importKiro(first.text, first.file);
    case 'taskmaster':
      return importTaskmaster(first.text, first.file, options);
    case 'beads':
      return importBeads(first.text, first.file);
  }
}
