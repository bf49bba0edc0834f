/**
 * Issue 21: a loop that waits out its agent's usage or rate limit says so once per wait — the
 * serial loop's wait and a parallel run's alike —, with Resume Now and Stop (the commands, so the
 * registrar refuses them in Restricted Mode). The status bar counts down meanwhile
 * (src/views/statusBar.ts); however often the views refresh, a wait is told once.
 */
import * as vscode from 'vscode';
import { limitNotice, type LimitWaitShown } from '../core/insights/waitText';
import { Commands } from '../constants';
import { tellWarning } from '../services/confirm';
import type { ParallelService } from '../services/parallel/parallelService';
import type { Runner } from '../services/run/runner';

export const RESUME_NOW = 'Resume Now';
export const STOP = 'Stop';

export function registerLimitNotice(context: vscode.ExtensionContext, runner: Runner, parallel: ParallelService): void {
  const told = new Set<string>();
  const tell = (w: LimitWaitShown | undefined, where: string): void => {
    // One wait is one story's until-time: a refresh, a tick or another event about it is not news.
    const key = w && `${where}#${w.storyId ?? ''}#${w.until}`;
    if (!w || !key || told.has(key)) {
      return;
    }
    told.add(key);
    void tellWarning(`Ralph: ${limitNotice(w, new Date(w.until).toLocaleTimeString())}`, [RESUME_NOW, STOP]).then((pick) => {
      if (pick) {
        void vscode.commands.executeCommand(pick === STOP ? Commands.stopNow : Commands.resumeNow);
      }
    });
  };
  context.subscriptions.push(
    runner.onDidChange((s) => tell(s.limit && { ...s.limit, storyId: s.storyId }, `serial:${s.folder?.uri.toString() ?? ''}`)),
    parallel.onDidChange(() => {
      const w = parallel.limitWait();
      tell(w, `parallel:${w?.folder.uri.toString() ?? ''}`);
    }),
  );
}
