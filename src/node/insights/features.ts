/**
 * The features a workspace folder knows, for telling which feature a run belonged to
 * (core/insights/features.ts): the current prd.json and each `archive/<YYYY-MM-DD>-<feature>/prd.json`.
 * A missing or unreadable file is left out (its runs count under the unknown feature), never an error.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { archiveDay, type FeatureStories } from '../../core/insights/features';
import { parsePrd } from '../../core/prd/document';

async function featureOfFile(file: string, archivedOn?: string): Promise<FeatureStories | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const doc = parsePrd(text, { positions: false, fileName: path.basename(file) });
  return doc.branchName ? { branchName: doc.branchName, storyIds: doc.stories.map((s) => s.id), ...(archivedOn ? { archivedOn } : {}) } : undefined;
}

/** The archived features of the workspace folder `root` (`<root>/archive/<YYYY-MM-DD>-<feature>/prd.json`). */
export async function readArchivedFeatures(root: string): Promise<FeatureStories[]> {
  let folders: string[] = [];
  try {
    folders = (await readdir(path.join(root, 'archive'), { withFileTypes: true })).filter((d) => d.isDirectory() && archiveDay(d.name)).map((d) => d.name);
  } catch {
    // No archive yet.
  }
  const found = await Promise.all(folders.map((f) => featureOfFile(path.join(root, 'archive', f, 'prd.json'), archiveDay(f))));
  return found.filter((f): f is FeatureStories => f !== undefined);
}

/** The current feature (`prdFile`, absolute) and the archived ones (the CLI; the extension has prd.json's snapshot). */
export async function readFeatures(root: string, prdFile: string): Promise<FeatureStories[]> {
  const [current, archived] = await Promise.all([featureOfFile(prdFile), readArchivedFeatures(root)]);
  return current ? [current, ...archived] : archived;
}
