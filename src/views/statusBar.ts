/**
 * The status bar item: while an agent runs, the story, iteration i/N and elapsed time (click shows
 * its terminal); otherwise the next ready story (click runs it), or why nothing can run.
 */
import * as vscode from 'vscode';
import { countdown } from '../core/webview/graphProtocol';
import { formatDuration } from '../core/runs/runs';
import type { LimitWaitShown } from '../core/insights/waitText';
import { STORY_STATES, type StoryStateKey } from '../core/vocabulary';
import { Commands } from '../constants';
import type { PrdWorkspace } from '../services/prdWorkspace';
import type { Runner } from '../services/run/runner';
import { isTrusted } from '../services/trust';
import { Disposable } from '../util/disposable';

export class RalphStatusBar extends Disposable {
  private readonly item = this.register(vscode.window.createStatusBarItem('ralph.status', vscode.StatusBarAlignment.Left, 50));
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly prds: PrdWorkspace,
    private readonly runner: Runner,
    /** The parallel loop: its agents count as running (the Stop commands and buttons then show); its wait for an agent's limit counts down like the serial loop's. */
    private readonly parallel?: { isRunning(): boolean; readonly runs: readonly unknown[]; readonly onDidChange: vscode.Event<unknown>; limitWait?(): LimitWaitShown | undefined },
  ) {
    super();
    this.item.name = 'Ralph';
    this.register(prds.onDidChange(() => this.update()));
    this.register(runner.onDidChange(() => this.update()));
    if (parallel) {
      this.register(parallel.onDidChange(() => this.update()));
    }
    this.register({ dispose: () => this.stopTimer() });
    this.update();
  }

  /** What the item says now (the test API reads it). */
  shown(): { text: string; tooltip?: string; command?: string } {
    const command = typeof this.item.command === 'string' ? this.item.command : this.item.command?.command;
    return { text: this.item.text, tooltip: typeof this.item.tooltip === 'string' ? this.item.tooltip : this.item.tooltip?.value, command };
  }

  private update(): void {
    const s = this.runner.state;
    const parallelRunning = this.parallel?.isRunning() ?? false;
    // The serial loop's wait, else a parallel run's: one countdown for both.
    const limit: LimitWaitShown | undefined = s.running && s.limit ? { ...s.limit, storyId: s.storyId } : parallelRunning ? this.parallel?.limitWait?.() : undefined;
    void vscode.commands.executeCommand('setContext', 'ralph.running', s.running || parallelRunning);
    void vscode.commands.executeCommand('setContext', 'ralph.waitingOnLimit', limit !== undefined);
    if (limit) {
      this.startTimer();
      this.item.text = `$(watch) Ralph: limit — resumes in ${countdown(limit.until - Date.now())}`;
      this.item.tooltip = `${limit.agent} hit its limit on ${limit.storyId ?? 'the story'}: it runs again at ${new Date(limit.until).toLocaleTimeString()}${limit.source === 'backoff' ? ' (no reset time was printed: backing off)' : ''}. Click to resume now.`;
      this.item.command = Commands.resumeNow;
      this.item.show();
      return;
    }
    if (!s.running && parallelRunning) {
      this.stopTimer();
      const n = this.parallel?.runs.length ?? 0;
      this.item.text = `${icon('running')} Ralph: parallel · ${n} ${n === 1 ? 'agent' : 'agents'}`;
      this.item.tooltip = 'A parallel Ralph loop is running: see the Stories view.';
      this.item.command = undefined;
      this.item.show();
      return;
    }
    if (s.running) {
      this.startTimer();
      const elapsed = s.iterationStartedAt ? formatDuration(Date.now() - s.iterationStartedAt) : '';
      const stopping = s.stopRequested ? ' · stopping' : '';
      this.item.text = `${icon('running')} Ralph: ${s.storyId ?? '…'} · ${s.iteration ?? 0}/${s.maxIterations ?? 1}${elapsed ? ` · ${elapsed}` : ''}${stopping}`;
      this.item.tooltip = `${s.storyId ?? ''} ${s.storyTitle ?? ''}\nIteration ${s.iteration}/${s.maxIterations}. Click to show the agent's terminal.`;
      this.item.command = Commands.showRunTerminal;
      this.item.backgroundColor = undefined;
      this.item.show();
      return;
    }
    this.stopTimer();
    const entries = this.prds.list();
    if (entries.length === 0 || !isTrusted()) {
      this.item.hide();
      return;
    }
    const withNext = entries.find((e) => e.analysis.readable && e.analysis.readiness.next);
    if (withNext) {
      const next = withNext.analysis.readiness.next!.story;
      this.item.text = `${icon('next')} Ralph: ${next.id}`;
      this.item.tooltip = `Run the next ready story: ${next.id} — ${next.title}`;
      this.item.command = Commands.runNext;
    } else {
      const a = entries[0].analysis;
      const c = a.readiness.counts;
      this.item.text = !a.readable ? `${icon('invalid')} Ralph: prd.json` : a.readiness.state === 'complete' ? `${icon('done')} Ralph: ${c.done}/${c.total}` : `${icon('blocked')} Ralph: ${STORY_STATES.blocked.word}`;
      this.item.tooltip = !a.readable ? 'prd.json has problems: see the Problems panel.' : a.readiness.state === 'complete' ? 'Every story passes.' : `Nothing is ready. ${a.readiness.explanation.join(' ')}`;
      this.item.command = Commands.showNextStory;
    }
    this.item.show();
  }

  private startTimer(): void {
    this.timer ??= setInterval(() => this.update(), 1000);
  }

  private stopTimer(): void {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}

/** A state's codicon from the one vocabulary, as status bar text (a running story's spins). */
function icon(key: StoryStateKey): string {
  return `$(${STORY_STATES[key].codicon}${key === 'running' ? '~spin' : ''})`;
}
