/**
 * The imported stories into prd.json. No prd.json yet: a new file. One already there: a minimal
 * text edit of it (core/prd/jsonEdits.ts, one parse for all edits) — a story this source created
 * before (same source format, file and id) has the fields the importer owns replaced where they
 * changed; a new one is appended to the story list; every other story, and every unknown field,
 * stays as it is, byte for byte. A story the source no longer has is left alone and listed.
 */
import { parse, type ParseError } from 'jsonc-parser';
import { applyEdits, type TextEdit } from '../textEdit';
import { appendElementsEdits, jsonStyleOf, jsonTree, type ParsedJson, setValueEdits } from '../prd/jsonEdits';
import { shapeOf, valueAt } from '../prd/shape';
import type { JsonPath } from '../prd/model';
import { ImportError, type ImportedStory, type ImportResult, type ImportWarning } from './types';

export interface MergeSummary {
  readonly added: number;
  readonly updated: number;
  readonly unchanged: number;
  /** Stories of the file not from this source, left alone. */
  readonly kept: number;
  /** Ids of stories this source created before and no longer has (left alone). */
  readonly gone: readonly string[];
  readonly warnings: readonly ImportWarning[];
}

/** The fields an import owns in a story it created; the others (notes a user wrote, an issue number…) are the user's. */
const OWNED = ['id', 'title', 'description', 'acceptanceCriteria', 'priority', 'passes', 'blockedBy', 'source'] as const;

function keyOf(source: unknown): string | undefined {
  if (typeof source !== 'object' || source === null) {
    return undefined;
  }
  const s = source as Record<string, unknown>;
  return typeof s.format === 'string' && typeof s.file === 'string' && typeof s.id === 'string' ? `${s.format}\u0000${s.file}\u0000${s.id}` : undefined;
}

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'imported';
}

/** The existing prd.json's value: JSON.parse, and jsonc-parser for a file with comments or trailing commas. */
function readExisting(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const errors: ParseError[] = [];
    const data = parse(text, errors, { allowTrailingComma: true, disallowComments: false }) as unknown;
    if (errors.length > 0) {
      throw new ImportError('the existing prd.json is not valid JSON: fix it first (Ralph: Validate shows where), then import again. Nothing was written.');
    }
    return data;
  }
}

/** A new prd.json for the stories. */
function newPrd(result: ImportResult, projectName: string, sourceLabel: string): string {
  const doc = { projectName, branchName: `ralph/${slug(projectName)}`, description: `Imported from ${sourceLabel} (${result.format}).`, userStories: result.stories };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

export function mergeIntoPrd(existing: string | undefined, result: ImportResult, meta: { projectName: string; sourceLabel: string }): { text: string; summary: MergeSummary } {
  if (existing === undefined || existing.trim() === '') {
    return { text: newPrd(result, meta.projectName, meta.sourceLabel), summary: { added: result.stories.length, updated: 0, unchanged: 0, kept: 0, gone: [], warnings: [] } };
  }
  const { edits, summary } = mergeEditsIntoPrd(existing, result);
  return { text: edits.length > 0 ? applyEdits(existing, edits) : existing, summary };
}

/** The edits that merge the stories into an existing prd.json text (the editor applies them as one undoable WorkspaceEdit). */
export function mergeEditsIntoPrd(existing: string, result: ImportResult): { edits: TextEdit[]; summary: MergeSummary } {
  const data = readExisting(existing);
  const shape = shapeOf(data);
  // The located tree only when something is written: a re-import that changes nothing parses once.
  let tree: ParsedJson | undefined;
  const parsedOnce = (): ParsedJson => (tree ??= { root: jsonTree(existing), style: jsonStyleOf(existing) });
  const list: JsonPath | undefined = shape.lists[0];
  if (!list) {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      throw new ImportError('the existing prd.json is not an object with a story list: nothing was written.');
    }
    const edits = setValueEdits(existing, ['userStories'], result.stories, parsedOnce());
    return { edits, summary: { added: result.stories.length, updated: 0, unchanged: 0, kept: 0, gone: [], warnings: [] } };
  }
  const current = (valueAt(data, list) as unknown[]) ?? [];
  const mine = new Map<string, number>();
  const otherIds = new Set<string>();
  current.forEach((s, k) => {
    const record = typeof s === 'object' && s !== null ? (s as Record<string, unknown>) : {};
    const key = keyOf(record.source);
    if (key !== undefined && (record.source as Record<string, unknown>).format === result.format) {
      mine.set(key, k);
    } else if (typeof record.id === 'string') {
      otherIds.add(record.id);
    }
  });
  const edits: TextEdit[] = [];
  const added: ImportedStory[] = [];
  const warnings: ImportWarning[] = [];
  const seen = new Set<number>();
  let updated = 0;
  let unchanged = 0;
  for (const story of result.stories) {
    const k = mine.get(keyOf(story.source) ?? '');
    if (otherIds.has(story.id)) {
      warnings.push({ message: `${story.id} is also the id of a story that was not imported from this source: both are kept (the validator reports the duplicate id)` });
    }
    if (k === undefined) {
      added.push(story);
      continue;
    }
    seen.add(k);
    const old = current[k] as Record<string, unknown>;
    const before = edits.length;
    for (const field of OWNED) {
      // A dependency list the source no longer has is emptied; a missing one is not added.
      const value = field === 'blockedBy' && story.blockedBy === undefined ? (old.blockedBy !== undefined ? [] : undefined) : story[field];
      // A story that passes here (the loop finished it) stays passing: the source lags behind the work, never the other way.
      if (field === 'passes' && old.passes === true && value === false) {
        continue;
      }
      if (value !== undefined && JSON.stringify(old[field]) !== JSON.stringify(value)) {
        edits.push(...setValueEdits(existing, [...list, k, field], value, parsedOnce()));
      }
    }
    if (edits.length > before) {
      updated++;
    } else {
      unchanged++;
    }
  }
  if (added.length > 0) {
    edits.push(...appendElementsEdits(existing, list, added, parsedOnce()));
  }
  const gone = [...mine.entries()].filter(([, k]) => !seen.has(k)).map(([, k]) => String((current[k] as Record<string, unknown>).id));
  return { edits, summary: { added: added.length, updated, unchanged, kept: current.length - mine.size, gone, warnings } };
}
