/**
 * One import, planned: the source read and mapped, the prd.json it gives (a new file, or the
 * existing one with a minimal edit), and what changed — the same for the CLI's `import` and the
 * extension's Import Stories… (which shows it as a diff before writing it).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type GitHubIssueInput, type ImportFormat, importFiles, importGitHubIssues, type ImportResult, type ImportWarning, mergeIntoPrd, type MergeSummary } from '../../core/import/index';
import { readImportSource } from './source';

export interface ImportPlan {
  readonly result: ImportResult;
  /** The prd.json as it is now (undefined: there is none). */
  readonly before: string | undefined;
  /** The prd.json the import gives. */
  readonly after: string;
  readonly summary: MergeSummary;
  /** The importer's warnings and the merge's, in that order. */
  readonly warnings: readonly ImportWarning[];
  /** What was read, for messages. */
  readonly sourceLabel: string;
}

function readPrd(prdFile: string): string | undefined {
  return existsSync(prdFile) ? readFileSync(prdFile, 'utf8') : undefined;
}

function plan(result: ImportResult, prdFile: string, sourceLabel: string, projectName: string): ImportPlan {
  const before = readPrd(prdFile);
  const { text, summary } = mergeIntoPrd(before, result, { projectName, sourceLabel });
  return { result, before, after: text, summary, warnings: [...result.warnings, ...summary.warnings], sourceLabel };
}

export interface FileImportOptions {
  /** The workspace folder: source paths are relative to it. */
  readonly root: string;
  /** The file or folder to import (absolute, or relative to root). */
  readonly source: string;
  readonly prdFile: string;
  readonly format?: Exclude<ImportFormat, 'github'>;
  readonly tag?: string;
}

export function planFileImport(o: FileImportOptions): ImportPlan {
  const source = readImportSource(o.source, o.root);
  const result = importFiles(source.files, { format: o.format, tag: o.tag, defaultTag: source.defaultTag });
  const label = path.relative(o.root, source.label).split(path.sep).join('/') || '.';
  return plan(result, o.prdFile, label, path.basename(o.root));
}

export function planGitHubImport(issues: readonly GitHubIssueInput[], repo: string, prdFile: string, readWarnings: readonly string[] = []): ImportPlan {
  const result = importGitHubIssues(issues, repo);
  const p = plan({ ...result, warnings: [...readWarnings.map((message) => ({ message })), ...result.warnings] }, prdFile, `github.com/${repo}`, repo.split('/')[1] ?? repo);
  return p;
}

/** One line of a warning: `file:line: message`. */
export function warningLine(w: ImportWarning, file: string): string {
  return `${w.file ?? file}${w.line !== undefined ? `:${w.line}` : ''}: ${w.message}`;
}
