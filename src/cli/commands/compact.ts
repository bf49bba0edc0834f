/** `compact`: progress.txt compaction (src/cli/compact.ts does the work). */
import { compact } from '../compact';
import { memoryCommand } from './memory';

export const compactCommand = memoryCommand('compact', 'Compact progress.txt: keep header, Codebase Patterns and recent entries, summarise\nthe rest per story (compact --help).', compact);
