/**
 * The host side of the task graph, shared by the sidebar view and the editor panels: it turns the
 * PRD and the runner's state into protocol messages, keeps the latest of each, and replays them
 * to a page when it says `ready` or becomes visible again (VS Code drops messages posted to a
 * hidden webview). Messages from pages are validated (graphProtocol.ts) before anything happens.
 */
import * as vscode from 'vscode';
import { blockerOffer, blockerOfferNote } from '../../core/prd/blockers';
import { graphMermaid, graphText } from '../../core/taskGraph/format';
import { GraphMessageBuilder, type Direction } from '../../core/taskGraph/message';
import { taskGraphOf } from '../../core/taskGraph/model';
import { detailsMessage, emptyMessage, noticeMessage, PageKeys, runMessage, type RunningStory, selectMessage } from '../../core/taskGraph/pageMessages';
import {
  addDependencyEdits,
  addStoryEdits,
  removeDependencyEdits,
  setStoryFieldEdits,
  type GraphEditResult,
} from '../../core/prd/graphEdits';
import { type ArtifactBadgeDto, type HostMessage, parsePageMessage, type PageMessage, type RunMessage } from '../../core/webview/graphProtocol';
import { Commands } from '../../constants';
import { editTextFile } from '../../services/fileEdits';
import type { ParallelService } from '../../services/parallel/parallelService';
import type { PrdEntry, PrdWorkspace } from '../../services/prdWorkspace';
import type { Runner } from '../../services/run/runner';
import type { RunsWorkspace } from '../../services/runsWorkspace';
import { isTrusted } from '../../services/trust';
import { Disposable } from '../../util/disposable';
import type { HostedPage } from '../webviewHost';

/** One page: a webview view or a panel (its webview is reached through the shared host). */
export type GraphPage = HostedPage<HostMessage, 'sidebar' | 'editor'>;

/** Posts the answer to the request being handled (to the load of the page that asked, or nowhere). */
type Reply = (answer: HostMessage) => void;
/** Every page message but `ready` is a request (it carries a request id). */
type Request = Exclude<PageMessage, { type: 'ready' }>;

export interface TaskGraphDeps {
  readonly prds: PrdWorkspace;
  readonly runner: Runner;
  /** The parallel loop (issue 19): the stories its agents work on, and each one's terminal. */
  readonly parallel?: Pick<ParallelService, 'runs' | 'waits' | 'limitWaits' | 'onDidChange' | 'terminalOfStory'>;
  /** The recorded runs (runs.jsonl, read through the path rule): each story's last outcome. */
  readonly runs: Pick<RunsWorkspace, 'forFolder' | 'onDidChange'>;
  readonly log: vscode.LogOutputChannel;
  /** Selects the story in the Stories view without taking the focus from the graph. */
  readonly reveal: (id: string, folder: vscode.Uri | undefined) => Promise<void>;
  /** The artifact status of each story's GitHub issue in a folder (the badge), by story id. */
  readonly artifactsFor?: (folder: vscode.Uri) => ReadonlyMap<string, ArtifactBadgeDto>;
  /** Fires when those statuses may have changed (a status-only update follows: no new layout). */
  readonly onDidChangeArtifacts?: vscode.Event<void>;
}

export class TaskGraphController extends Disposable {
  private readonly pages = new Set<GraphPage>();
  private readonly ready = new WeakSet<GraphPage>();
  private readonly builders = new Map<Direction, GraphMessageBuilder>();
  private direction: Direction = 'LR';
  private graph?: HostMessage;
  private run: RunMessage = { type: 'run', running: false, stories: [], lastOutcome: [] };
  /** The folder whose runs.jsonl the last outcomes were read from. */
  private outcomesFolder?: string;
  /** The last recorded outcome per story id (runs.jsonl). */
  private outcomes: ReadonlyMap<string, string> = new Map();
  /** The page knows a story with a very long id by a key: this turns the keys it posts back into ids. */
  private keys = new PageKeys([]);
  /** The selected story's id (the pages get its key). */
  private selected?: string;
  /** The folder whose prd.json the graph shows (undefined: the first). */
  private folderKey?: string;
  /** The badges last sent, to skip an update that changes nothing. */
  private artifactsKey = '';
  /** What the last graph message was built from: the same snapshot again sends nothing. */
  private builtFrom?: { readonly analysis: PrdEntry['analysis']; readonly artifactsKey: string; readonly direction: Direction; readonly sources: number };
  private readonly onDidSelectEmitter = this.register(new vscode.EventEmitter<string>());
  /** A page selected a story (the Stories view follows). */
  readonly onDidSelect = this.onDidSelectEmitter.event;
  /** Messages rejected by validation (host tests read it). */
  rejected = 0;

  constructor(private readonly deps: TaskGraphDeps) {
    super();
    this.register(deps.prds.onDidChange(() => this.refreshGraph()));
    this.register(deps.runner.onDidChange(() => this.refreshRun()));
    if (deps.parallel) {
      this.register(deps.parallel.onDidChange(() => this.refreshRun()));
    }
    if (deps.onDidChangeArtifacts) {
      this.register(deps.onDidChangeArtifacts(() => this.refreshArtifacts()));
    }
    this.register(deps.runs.onDidChange(() => this.refreshOutcomes()));
    this.refreshGraph();
    this.refreshRun();
    this.refreshOutcomes();
  }

  /**
   * The entry the graph shows: the folder last chosen (by selecting one of its stories in the
   * Stories view, or with "Choose prd.json…"), else the first workspace folder with a prd.json.
   */
  entry(): PrdEntry | undefined {
    const all = this.deps.prds.list();
    return all.find((e) => e.folder.uri.toString() === this.folderKey) ?? all[0];
  }

  /** Shows the prd.json of another folder (a multi-root workspace); true when the graph changed. */
  showFolder(folder: vscode.Uri): boolean {
    const key = folder.toString();
    const current = this.entry();
    if (current?.folder.uri.toString() === key || !this.deps.prds.list().some((e) => e.folder.uri.toString() === key)) {
      return false;
    }
    this.folderKey = key;
    this.refreshGraph();
    this.refreshOutcomes();
    return true;
  }

  /** Adds a page (its messages come through `receive`); returns what to dispose when it goes away. */
  attach(page: GraphPage): vscode.Disposable {
    this.pages.add(page);
    return new vscode.Disposable(() => this.pages.delete(page));
  }

  /** A page became visible again: replay the latest state (messages sent while hidden were dropped). */
  replay(page: GraphPage): void {
    if (this.ready.has(page)) {
      this.sendAll(page);
    }
  }

  /** Selects a story in every page (the Stories view's selection changed), in its folder's graph. */
  select(id: string, folder?: vscode.Uri): void {
    const switched = folder !== undefined && this.showFolder(folder);
    if (id === this.selected && !switched) {
      return;
    }
    this.selected = id;
    this.broadcast(selectMessage(id));
  }

  /** The latest graph message (tests and the API read it). */
  snapshot(): HostMessage | undefined {
    return this.graph;
  }

  /** The run status the page was sent last (tests). */
  runSnapshot(): HostMessage | undefined {
    return this.run;
  }

  layoutRuns(): number {
    return [...this.builders.values()].reduce((s, b) => s + b.layoutRuns, 0);
  }

  private builder(): GraphMessageBuilder {
    let b = this.builders.get(this.direction);
    if (!b) {
      b = new GraphMessageBuilder();
      this.builders.set(this.direction, b);
    }
    return b;
  }

  private refreshGraph(): void {
    const entry = this.entry();
    if (entry && entry.folder.uri.toString() !== this.outcomesFolder) {
      // The first read of this folder's prd.json (at start-up it comes after the constructor's
      // attempt): the outcomes of earlier runs are shown without waiting for a new one.
      this.refreshOutcomes();
    }
    if (!entry) {
      this.graph = emptyMessage('No prd.json in this workspace yet. Create one with "Ralph: Create prd.json".');
      this.builtFrom = undefined;
    } else {
      const stories = entry.analysis.doc.stories;
      this.keys = new PageKeys([...stories.map((s) => s.id), ...stories.flatMap((s) => s.blockedBy.map((r) => r.id))]);
      const started = Date.now();
      const source = vscode.workspace.asRelativePath(entry.uri);
      const runs = this.builder().layoutRuns;
      const artifacts = this.deps.artifactsFor?.(entry.folder.uri);
      this.artifactsKey = keyOf(artifacts);
      const sources = this.deps.prds.list().length;
      const from = { analysis: entry.analysis, artifactsKey: this.artifactsKey, direction: this.direction, sources };
      const b = this.builtFrom;
      if (b && b.analysis === from.analysis && b.artifactsKey === from.artifactsKey && b.direction === from.direction && b.sources === from.sources && this.graph?.type === 'graph') {
        // The model told us again about the snapshot we drew (a forced re-read of the same text):
        // a second, layout-less message would only replace the one that carried the layout.
        return;
      }
      this.builtFrom = from;
      const built = this.builder().build(entry.analysis, source, this.direction, (n) => {
        const a = artifacts?.get(n.id);
        return a ? { ...n, artifacts: a } : n;
      });
      this.graph = built.type === 'graph' && sources > 1 ? { ...built, sources } : built;
      if (this.builder().layoutRuns !== runs) {
        this.deps.log.debug(`[graph] ${entry.analysis.doc.stories.length} stories laid out in ${Date.now() - started} ms`);
      }
    }
    this.broadcast(this.graph);
  }

  /** GitHub artifacts changed: a status-only graph update when a badge differs (the layout stays). */
  private refreshArtifacts(): void {
    const entry = this.entry();
    if (entry && keyOf(this.deps.artifactsFor?.(entry.folder.uri)) !== this.artifactsKey) {
      this.refreshGraph();
    }
  }

  /**
   * The run status of the folder the graph shows: the serial run's story, then each story a
   * parallel run's agents work on (a run in another folder marks nothing here: ids repeat across
   * folders).
   */
  private refreshRun(): void {
    const folder = this.entry()?.folder.uri.toString();
    const here = (f: vscode.WorkspaceFolder | undefined): boolean => f === undefined || folder === undefined || f.uri.toString() === folder;
    const s = this.deps.runner.state;
    const serial = s.running && here(s.folder);
    const stories: RunningStory[] = [];
    if (serial && s.storyId !== undefined) {
      stories.push({ storyId: s.storyId, iteration: s.iteration, maxIterations: s.maxIterations, startedAt: s.iterationStartedAt, resumesAt: s.limit?.until });
    }
    for (const r of this.deps.parallel?.runs ?? []) {
      if (here(r.folder)) {
        stories.push({ storyId: r.storyId, iteration: r.iteration, maxIterations: r.maxIterations, startedAt: r.startedAt });
      }
    }
    // A parallel story waiting out its agent's limit: its mark counts down, as the serial run's does.
    for (const w of this.deps.parallel?.limitWaits() ?? []) {
      if (here(w.folder)) {
        stories.push({ storyId: w.storyId, resumesAt: w.until });
      }
    }
    const waits = (this.deps.parallel?.waits ?? []).filter((w) => here(w.folder));
    this.run = runMessage({ running: serial, stories, waits }, this.outcomes);
    this.broadcast(this.run);
  }

  private refreshOutcomes(): void {
    const entry = this.entry();
    if (!entry) {
      return;
    }
    this.outcomesFolder = entry.folder.uri.toString();
    const outcomes = new Map<string, string>();
    for (const r of this.deps.runs.forFolder(entry.folder.uri)?.runs ?? []) {
      outcomes.set(r.storyId, r.outcome);
    }
    this.outcomes = outcomes;
    this.refreshRun();
  }

  private sendAll(page: GraphPage): void {
    if (this.graph) {
      // A (re)loaded page has no layout: send the current one with the graph.
      const g = this.graph.type === 'graph' && !this.graph.layout ? { ...this.graph, layout: this.builder().currentLayout() } : this.graph;
      page.post(g);
    }
    page.post(this.run);
    if (this.selected) {
      page.post(selectMessage(this.selected));
    }
  }

  private broadcast(message: HostMessage): void {
    for (const page of this.pages) {
      if (this.ready.has(page) && page.visible) {
        page.post(message);
      }
    }
  }

  /** Validates and handles one message from a page. */
  async receive(page: GraphPage, data: unknown): Promise<void> {
    const parsed = parsePageMessage(data);
    if (!parsed.ok) {
      this.rejected++;
      this.deps.log.warn(`[graph] rejected a message from the page: ${parsed.error}`);
      return;
    }
    const m = parsed.message;
    if (m.type === 'ready') {
      // a (re)loaded page: what its earlier load asked is answered nowhere
      page.loaded();
      this.ready.add(page);
      this.sendAll(page);
      return;
    }
    // taken now, before anything is awaited: the answer goes to the load of the page that asked
    const reply = page.replier();
    try {
      await this.handle(page, this.withIds(m), reply);
    } catch (e) {
      this.deps.log.error(`[graph] ${m.type}: ${(e as Error).message}`);
      reply(noticeMessage(m.requestId, 'error', (e as Error).message));
    }
  }

  /** The request with the story keys the page knows turned back into ids. */
  private withIds(m: Request): Request {
    const id = (key: string): string => this.keys.idOf(key);
    switch (m.type) {
      case 'select':
      case 'open':
      case 'details':
        return { ...m, id: id(m.id) };
      case 'showTerminal':
        return m.id === undefined ? m : { ...m, id: id(m.id) };
      case 'addDependency':
      case 'removeDependency':
        return { ...m, story: id(m.story), blocker: id(m.blocker) };
      case 'pickBlocker':
      case 'editStory':
        return { ...m, story: id(m.story) };
      case 'addStory':
        return { ...m, blockedBy: m.blockedBy?.map(id) };
      default:
        return m;
    }
  }

  private async handle(page: GraphPage, m: Request, reply: Reply): Promise<void> {
    const entry = this.entry();
    const notice = (level: 'info' | 'error', message: string, cycle?: readonly string[]): void => reply(noticeMessage(m.requestId, level, message, cycle));
    switch (m.type) {
      case 'select':
        this.selected = m.id;
        this.onDidSelectEmitter.fire(m.id);
        for (const other of this.pages) {
          if (other !== page && this.ready.has(other) && other.visible) {
            other.post(selectMessage(m.id));
          }
        }
        await this.deps.reveal(m.id, entry?.folder.uri);
        return;
      case 'open':
        await vscode.commands.executeCommand(Commands.storyOpen, m.id, entry?.folder.uri);
        return;
      case 'pickFolder': {
        const all = this.deps.prds.list();
        const current = this.entry();
        const picked = await vscode.window.showQuickPick(
          all.map((e) => ({ label: e.folder.name, description: vscode.workspace.asRelativePath(e.uri), picked: e === current, entry: e })),
          { placeHolder: 'Show the task graph of which prd.json?' },
        );
        if (picked) {
          this.showFolder(picked.entry.folder.uri);
        }
        return;
      }
      case 'details': {
        const story = entry?.analysis.doc.stories.find((s) => s.id === m.id);
        if (story) {
          reply(detailsMessage(m.requestId, story));
        }
        return;
      }
      case 'showTerminal':
        await this.showTerminal(m.id);
        return;
      case 'openInEditor':
        await vscode.commands.executeCommand(Commands.openTaskGraph);
        return;
      case 'copy': {
        if (!entry || !entry.analysis.readable) {
          throw new Error('prd.json cannot be read right now; fix it first.');
        }
        const g = taskGraphOf(entry.analysis);
        await vscode.env.clipboard.writeText(m.format === 'mermaid' ? graphMermaid(g) : graphText(g));
        notice('info', m.format === 'mermaid' ? 'Copied the graph as Mermaid.' : 'Copied the graph as text.');
        return;
      }
      case 'setDirection':
        if (m.direction !== this.direction) {
          this.direction = m.direction;
          this.refreshGraph();
          // every page needs the new layout, including those that keep the old direction's builder
          for (const p of this.pages) {
            if (this.ready.has(p) && p.visible) {
              this.sendAll(p);
            }
          }
        }
        return;
      case 'pickBlocker':
        await this.pickBlocker(page, m.story, m.requestId, reply);
        return;
      case 'addDependency':
        await this.edit(notice, (text) => addDependencyEdits(text, m.story, m.blocker), `${m.story} now waits on ${m.blocker}.`);
        return;
      case 'removeDependency':
        await this.edit(notice, (text) => removeDependencyEdits(text, m.story, m.blocker), `${m.story} no longer waits on ${m.blocker}.`);
        return;
      case 'editStory':
        await this.edit(notice, (text) => setStoryFieldEdits(text, m.story, m.field, m.value), `Saved the ${m.field === 'acceptanceCriteria' ? 'acceptance criteria' : m.field} of ${m.story}.`);
        return;
      case 'addStory':
        await this.edit(notice, (text) => addStoryEdits(text, m.title, m.blockedBy), `Added "${m.title}".`);
        return;
    }
  }

  /**
   * A running story's mark was clicked: its agent's terminal (the serial run's, or the parallel
   * agent's of that story in the graph's folder). The status line's link names no story: the
   * serial run's terminal, as before.
   */
  private async showTerminal(storyId: string | undefined): Promise<void> {
    const s = this.deps.runner.state;
    if (storyId === undefined || (s.running && s.storyId === storyId)) {
      await vscode.commands.executeCommand(Commands.showRunTerminal);
      return;
    }
    const entry = this.entry();
    const terminal = entry && this.deps.parallel?.terminalOfStory(entry.folder.uri, storyId);
    if (!terminal) {
      throw new Error(`The terminal of ${storyId}'s agent is closed or not in this window.`);
    }
    terminal.show(false);
  }

  /** The "Add blocker…" pick: only the stories the edit accepts (core/prd/blockers.ts), and why the others are missing. */
  private async pickBlocker(page: GraphPage, storyId: string, requestId: number, reply: Reply): Promise<void> {
    const entry = this.entry();
    if (!entry?.analysis.readable) {
      throw new Error('prd.json cannot be read right now; fix it first.');
    }
    const offer = blockerOffer(entry.analysis, storyId);
    if (!offer) {
      throw new Error(`There is no story "${storyId}" in prd.json.`);
    }
    const note = blockerOfferNote(offer);
    if (offer.offered.length === 0) {
      reply(noticeMessage(requestId, 'info', `No story can block ${storyId}${note ? `: ${note}` : ': it is the only story'}.`));
      return;
    }
    const items = offer.offered.map((s) => ({ label: s.id, description: s.title, detail: s.passes ? 'passes' : undefined }));
    const pick = await vscode.window.showQuickPick(items, {
      title: `Add a blocker to ${storyId}: it will wait until the story you pick passes`,
      placeHolder: note ?? 'Pick the story it waits on',
      matchOnDescription: true,
    });
    if (pick) {
      await this.handle(page, { type: 'addDependency', requestId, story: storyId, blocker: pick.label }, reply);
    }
  }

  /** Applies a graph edit as an undoable WorkspaceEdit of prd.json, or shows why it was refused. */
  private async edit(notice: (level: 'info' | 'error', message: string, cycle?: readonly string[]) => void, compute: (text: string) => GraphEditResult, done: string): Promise<void> {
    if (!isTrusted()) {
      throw new Error('Editing prd.json from the graph needs a trusted workspace.');
    }
    const entry = this.entry();
    if (!entry) {
      throw new Error('There is no prd.json in this workspace.');
    }
    let refusal: GraphEditResult | undefined;
    const result = await editTextFile(entry.uri, (text) => {
      const r = compute(text);
      if (!r.ok) {
        refusal = r;
        return [];
      }
      return r.edits;
    });
    if (refusal && !refusal.ok) {
      notice('error', refusal.message, refusal.cycle);
      return;
    }
    this.deps.log.info(`[graph] ${done}`);
    notice('info', result === 'unchanged' ? 'Nothing to change.' : done);
    this.deps.prds.refreshAll();
  }
}

function keyOf(artifacts: ReadonlyMap<string, ArtifactBadgeDto> | undefined): string {
  return artifacts ? JSON.stringify([...artifacts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : '';
}
