/**
 * `.ralph/parallel.json` on disk: read with the schema of src/core/parallel/state.ts, written
 * atomically (write-file-atomic: a crash leaves the old file or the new one, never half), one
 * update at a time within a process, through the workspace path rule (a `.ralph/` symlinked out
 * of the folder is refused).
 */
import { mkdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { formatParallelState, PARALLEL_STATE_FILE, type ParallelState, parseParallelState } from '../../core/parallel/state';
import { writeFileAtomically } from '../atomicWrite';
import { writableInside } from '../workspacePath';
import { ParallelError } from './git';

export class ParallelStateStore {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(readonly root: string) {}

  /** The state, or undefined when there is no file; a damaged file throws with the place. */
  async read(): Promise<ParallelState | undefined> {
    let text: string;
    try {
      text = await readFile(path.join(this.root, PARALLEL_STATE_FILE), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        return undefined;
      }
      throw new ParallelError('state', `Cannot read ${PARALLEL_STATE_FILE} (${(e as NodeJS.ErrnoException).code ?? 'error'}).`);
    }
    const parsed = parseParallelState(text);
    if (!parsed.ok) {
      throw new ParallelError('state', `${parsed.message} Fix or delete it; the worktrees and branches it listed are untouched (git worktree list shows them).`);
    }
    return parsed.state;
  }

  /** Applies `change` to the current state (or `initial` when there is none) and writes the result. */
  update(initial: ParallelState, change: (s: ParallelState) => ParallelState): Promise<ParallelState> {
    const next = this.chain.then(async () => {
      const state = change((await this.read()) ?? initial);
      await mkdir(path.join(this.root, '.ralph'), { recursive: true });
      await writeFileAtomically(await writableInside(this.root, PARALLEL_STATE_FILE, { what: 'queue state file' }), formatParallelState(state));
      return state;
    });
    this.chain = next.catch(() => undefined);
    return next;
  }
}
