/**
 * What the same-file guard predicts from (core/loop/sameFile.ts): the Pin's modules and the files
 * earlier attempts changed (progress.txt), read from the main folder at the loop's start.
 */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { predictAll } from '../../core/loop/sameFile';
import { parsePin } from '../../core/pin/format';
import { parseProgress } from '../../core/progress/parse';
import { filesChangedByStory } from '../../core/progress/views';
import type { MemoryPaths } from './storyRun';

export async function readPredictionInputs(root: string, files: MemoryPaths): Promise<Parameters<typeof predictAll>[1]> {
  const read = (rel: string) => readFile(path.join(root, rel), 'utf8').catch(() => undefined);
  const [pinText, progressText] = await Promise.all([read(files.pin), read(files.progress)]);
  return {
    pin: pinText !== undefined ? parsePin(pinText) : undefined,
    progressFiles: progressText !== undefined ? filesChangedByStory(parseProgress(progressText)) : undefined,
    memoryFiles: [files.prd, files.progress],
  };
}
