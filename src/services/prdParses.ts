/**
 * Test seam (test build only): how many times prd.json was parsed, per workspace folder
 * (RalphApi.prdParses). The workspace model reports each analysis behind `__RALPH_TEST__`, so the
 * production build drops this module with the call; a host test asserts that one change on disk or
 * in the editor costs one parse, whatever the views, diagnostics and the GitHub layer then read.
 */
const counts = new Map<string, number>();

/** Records one parse of the prd.json of the folder `folderKey` (its URI as a string). */
export function countPrdParse(folderKey: string): void {
  counts.set(folderKey, (counts.get(folderKey) ?? 0) + 1);
}

/** The parses of the folder's prd.json since the window opened. */
export function prdParses(folderKey: string): number {
  return counts.get(folderKey) ?? 0;
}
