/**
 * Tells the user about Needs You items (issue 19): a count badge on the Stories view (the Ralph
 * activity-bar icon shows it) while items are open, and one notification per item, with its
 * main action as the button, however often the views refresh.
 */
import * as vscode from 'vscode';
import { itemsToAnnounce, type NeedsYouAction, needsYouRow } from '../core/parallel/needsYouRows';
import { Commands } from '../constants';
import type { NeedsYouEntry, ParallelService } from '../services/parallel/parallelService';
import { Disposable } from '../util/disposable';
import { needsYouInput } from './needsYouNodes';

const BUTTONS: Record<NeedsYouAction, { label: string; command: string }> = {
  retry: { label: 'Retry', command: Commands.needsYouRetry },
  skip: { label: 'Skip Story', command: Commands.needsYouSkip },
  showTerminal: { label: 'Show Terminal', command: Commands.needsYouShowTerminal },
  openWorktree: { label: 'Open Worktree', command: Commands.needsYouOpenWorktree },
  openConflict: { label: 'Open Conflict', command: Commands.needsYouOpenConflict },
  resume: { label: 'Resume', command: Commands.parallelResume },
  removeWorktree: { label: 'Remove Worktree', command: Commands.needsYouRemoveWorktree },
};

export class NeedsYouAnnouncer extends Disposable {
  private readonly seen = new Set<string>();
  /** The notifications shown, oldest first (the test API reads them). */
  readonly announced: string[] = [];

  constructor(
    private readonly parallel: ParallelService,
    private readonly view: vscode.TreeView<unknown>,
  ) {
    super();
    this.register(parallel.onDidChange(() => this.update()));
  }

  /** The badge's number on the Stories view (undefined: no badge). */
  get badge(): number | undefined {
    return this.view.badge?.value;
  }

  private update(): void {
    const items = this.parallel.needsYou();
    this.view.badge = items.length > 0 ? { value: items.length, tooltip: `${items.length} ${items.length === 1 ? 'story needs' : 'stories need'} you` } : undefined;
    // A recovered item was told once, in the interrupted run's one notification (interruptedRuns.ts).
    const fresh = itemsToAnnounce(
      this.seen,
      items.filter((i) => !i.recovered).map((i) => ({ ...needsYouInput(i), entry: i })),
    );
    for (const f of fresh) {
      this.announce(f.entry);
    }
  }

  private announce(item: NeedsYouEntry): void {
    const button = BUTTONS[needsYouRow(needsYouInput(item)).mainAction];
    this.announced.push(item.message);
    void vscode.window.showWarningMessage(`Ralph: ${item.message}`, button.label).then((pick) => {
      if (pick) {
        void vscode.commands.executeCommand(button.command, item.storyId);
      }
    });
  }
}
