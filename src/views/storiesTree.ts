/**
 * The Stories tree: one group per workspace folder with a prd.json when there are several folders,
 * the stories directly otherwise. Problems come first, then an explanation when nothing can run,
 * then the stories in run order. While a prd.json cannot be read, its stories are never shown as
 * current: after the problems, a node says why (the first problem and its line), and the stories of the last good
 * read follow, marked stale. The story an agent works on is marked while its iteration runs.
 */
import * as vscode from 'vscode';
import type { Problem } from '../core/prd/problems';
import { STORY_STATES } from '../core/vocabulary';
import type { PrdEntry, PrdWorkspace } from '../services/prdWorkspace';
import type { NeedsYouEntry } from '../services/parallel/parallelService';
import { Disposable } from '../util/disposable';
import { NeedsYouNode } from './needsYouNodes';
import { FolderNode, InfoNode, ProblemNode, ProblemsNode, RefusedNode, type RunningIteration, type StoryLearningRef, StoryNode, type StoryTreeNode } from './storyNodes';

/** What the tree needs of the runner: which stories run now (one per folder at most), and when that changes. */
export interface RunningSource {
  readonly runs: readonly { readonly folder?: vscode.WorkspaceFolder; readonly storyId?: string; readonly iteration?: number; readonly maxIterations?: number }[];
  readonly onDidChange: vscode.Event<unknown>;
}

/** What the tree needs of the parallel loop: the stories its agents work on, its open Needs You items. */
export interface ParallelSource extends RunningSource {
  needsYou(): readonly NeedsYouEntry[];
}

interface EntryNodes {
  readonly stories: StoryNode[];
  readonly byId: Map<string, StoryNode>;
}

export class StoriesTreeProvider extends Disposable implements vscode.TreeDataProvider<StoryTreeNode> {
  private readonly onDidChangeEmitter = this.register(new vscode.EventEmitter<StoryTreeNode | undefined>());
  readonly onDidChangeTreeData = this.onDidChangeEmitter.event;
  private cache = new Map<string, EntryNodes>();
  private folderNodes = new Map<string, FolderNode>();
  /** Per folder: the entry of the last read that could be read as a list of stories. */
  private readonly lastGood = new Map<string, PrdEntry>();
  private lastRunning = '';
  private lastParallel = '';

  constructor(
    private readonly prds: PrdWorkspace,
    private readonly learningsOf: (folder: vscode.Uri, storyId: string) => readonly StoryLearningRef[] = () => [],
    onDidChangeLearnings?: vscode.Event<void>,
    private readonly runner?: RunningSource,
    /** More children of a story after the built-in ones (the GitHub layer's issue artifacts). */
    private readonly extraChildren?: { of: (story: StoryNode) => StoryTreeNode[]; onDidChange: vscode.Event<void> },
    private readonly parallel?: ParallelSource,
    /** Each published story's state on GitHub (services/githubFollow.ts). */
    private readonly remote?: { stateOf(folder: vscode.Uri, storyId: string): { readonly label: string; readonly url?: string } | undefined; readonly onDidChange: vscode.Event<void> },
  ) {
    super();
    const refresh = (): void => {
      this.rememberGoodReads();
      this.cache.clear();
      this.folderNodes.clear();
      this.onDidChangeEmitter.fire(undefined);
    };
    this.rememberGoodReads();
    this.register(prds.onDidChange(refresh));
    if (onDidChangeLearnings) {
      this.register(onDidChangeLearnings(refresh));
    }
    if (runner) {
      this.register(
        runner.onDidChange(() => {
          // The runner reports every second while it runs; redraw only when the marked story changes.
          const key = this.runningKey();
          if (key !== this.lastRunning) {
            this.lastRunning = key;
            this.onDidChangeEmitter.fire(undefined);
          }
        }),
      );
    }
    if (extraChildren) {
      this.register(extraChildren.onDidChange(refresh));
    }
    if (remote) {
      this.register(remote.onDidChange(refresh));
    }
    if (parallel) {
      this.register(
        parallel.onDidChange(() => {
          const key = `${this.runningKey()}\n${parallel.needsYou().map((i) => `${i.folder.uri.toString()}|${i.storyId}|${i.message}|${i.conflictFiles?.join(',') ?? ''}`).join('\n')}`;
          if (key !== this.lastParallel) {
            this.lastParallel = key;
            this.cache.clear();
            this.onDidChangeEmitter.fire(undefined);
          }
        }),
      );
    }
  }

  private rememberGoodReads(): void {
    const present = new Set<string>();
    for (const e of this.prds.list()) {
      const key = e.folder.uri.toString();
      present.add(key);
      if (e.analysis.readable) {
        this.lastGood.set(key, e);
      }
    }
    for (const key of [...this.lastGood.keys()]) {
      if (!present.has(key)) {
        this.lastGood.delete(key);
      }
    }
  }

  private runningKey(): string {
    return this.allRuns().map((r) => `${r.folder?.uri.toString()}|${r.storyId}|${r.iteration}/${r.maxIterations}`).join('\n');
  }

  private allRuns(): RunningSource['runs'] {
    return [...(this.runner?.runs ?? []), ...(this.parallel?.runs ?? [])];
  }

  /** The iteration running this story in this folder (a serial run's one story, or one of a parallel run's). */
  private running(folderKey: string, storyId: string): RunningIteration | undefined {
    const s = this.allRuns().find((r) => r.folder?.uri.toString() === folderKey && r.storyId === storyId);
    if (!s?.storyId) {
      return undefined;
    }
    return { storyId: s.storyId, iteration: s.iteration ?? 1, maxIterations: s.maxIterations ?? 1 };
  }

  getTreeItem(node: StoryTreeNode): vscode.TreeItem {
    return node.treeItem();
  }

  getChildren(node?: StoryTreeNode): StoryTreeNode[] {
    if (!node) {
      const entries = this.prds.list();
      const multiRoot = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
      const refused = this.prds.refused().map((r) => new RefusedNode(r, multiRoot));
      if (multiRoot) {
        return [...entries.map((e) => this.folderNode(e)), ...refused];
      }
      return entries.length === 1 ? this.entryChildren(entries[0], undefined) : refused;
    }
    switch (node.kind) {
      case 'folder':
        return this.entryChildren(node.entry, node);
      case 'problems':
        return node.entry.analysis.problems.map((p, i) => new ProblemNode(node.entry, p, node, i));
      case 'info':
      case 'needsYou':
        return node.children();
      case 'story':
        return [...node.children((id) => this.nodesFor(node.entry).byId.get(id), this.learningsOf(node.entry.folder.uri, node.id)), ...(this.extraChildren?.of(node) ?? [])];
      default:
        return [];
    }
  }

  getParent(node: StoryTreeNode): StoryTreeNode | undefined {
    return node.parent;
  }

  /** The story node with this id in the given folder's PRD (the only PRD when no folder is given). */
  findStory(id: string, folderUri?: vscode.Uri | string): StoryNode | undefined {
    const entry = this.prds.forFolder(folderUri);
    return entry ? this.nodesFor(entry).byId.get(id) : undefined;
  }

  nextStory(folderUri?: vscode.Uri | string): StoryNode | undefined {
    const entry = this.prds.forFolder(folderUri) ?? this.prds.list().find((e) => e.analysis.readiness.next);
    const next = entry?.analysis.readiness.next;
    return entry && next ? this.nodesFor(entry).byId.get(next.story.id) : undefined;
  }

  private folderNode(entry: PrdEntry): FolderNode {
    const key = entry.folder.uri.toString();
    let node = this.folderNodes.get(key);
    if (!node) {
      node = new FolderNode(entry);
      this.folderNodes.set(key, node);
    }
    return node;
  }

  private entryChildren(entry: PrdEntry, parent: FolderNode | undefined): StoryTreeNode[] {
    const a = entry.analysis;
    const out: StoryTreeNode[] = [];
    const items = this.parallel?.needsYou().filter((i) => i.folder.uri.toString() === entry.folder.uri.toString()) ?? [];
    if (items.length > 0) {
      out.push(new NeedsYouNode(entry.folder.uri.toString(), items));
    }
    if (!a.readable) {
      return [...out, ...this.unreadableChildren(entry, parent)];
    }
    if (a.problems.length > 0) {
      out.push(new ProblemsNode(entry, parent));
    }
    const r = a.readiness;
    if (a.doc.hasStories && r.state === 'blocked') {
      const remaining = r.counts.total - r.counts.done;
      out.push(new InfoNode(entry, `Nothing is ready: ${remaining} ${remaining === 1 ? 'story waits' : 'stories wait'}`, r.explanation, parent, 'warning'));
    } else if (r.state === 'complete') {
      out.push(new InfoNode(entry, `All ${r.counts.total} stories pass`, [], parent, STORY_STATES.done.codicon));
    } else if (a.doc.hasStories && r.state === 'empty') {
      out.push(new InfoNode(entry, 'No stories yet: add one to "userStories"', [], parent, 'info'));
    }
    out.push(...this.nodesFor(entry, parent).stories);
    return out;
  }

  /** A prd.json that cannot be read: its problems, why it cannot be read, then the last good read's stories marked stale. */
  private unreadableChildren(entry: PrdEntry, parent: FolderNode | undefined): StoryTreeNode[] {
    const a = entry.analysis;
    const file = vscode.workspace.asRelativePath(entry.uri, false);
    const first = a.problems.find((p) => p.severity === 'error') ?? a.problems[0];
    const why = first ? `${first.message} (line ${first.range.start.line + 1})` : 'it has no "userStories" list';
    const last = this.lastGood.get(entry.folder.uri.toString());
    const details = last ? ['The stories below are from the last good read (stale) and may no longer match the file.'] : [];
    const out: StoryTreeNode[] = [];
    if (a.problems.length > 0) {
      out.push(new ProblemsNode(entry, parent));
    }
    out.push(new InfoNode(entry, `${file} cannot be read: ${why}`, details, parent, 'error'));
    if (last) {
      const titles = new Map(last.analysis.doc.stories.map((st) => [st.id, st.title] as const));
      out.push(...last.analysis.readiness.order.map((state) => new StoryNode(last, state, [], parent, (id) => titles.get(id), undefined, true)));
    }
    return out;
  }

  private nodesFor(entry: PrdEntry, parent?: FolderNode): EntryNodes {
    const key = entry.folder.uri.toString();
    let nodes = this.cache.get(key);
    if (!nodes) {
      const folderParent = parent ?? ((vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? this.folderNode(entry) : undefined);
      const problemsByStory = new Map<number, Problem[]>();
      for (const p of entry.analysis.problems) {
        if (p.storyIndex !== undefined) {
          const list = problemsByStory.get(p.storyIndex) ?? [];
          list.push(p);
          problemsByStory.set(p.storyIndex, list);
        }
      }
      const titles = new Map<string, string>();
      for (const s of entry.analysis.doc.stories) {
        if (s.id !== '' && !titles.has(s.id)) {
          titles.set(s.id, s.title);
        }
      }
      const titleOf = (id: string): string | undefined => titles.get(id);
      const stories = entry.analysis.readiness.order.map(
        (state) => new StoryNode(entry, state, problemsByStory.get(state.story.index) ?? [], folderParent, titleOf, (id) => this.running(key, id), false, this.remote?.stateOf(entry.folder.uri, state.story.id)),
      );
      const byId = new Map<string, StoryNode>();
      for (const n of [...stories].sort((x, y) => x.state.story.index - y.state.story.index)) {
        if (n.id !== '' && !byId.has(n.id)) {
          byId.set(n.id, n);
        }
      }
      nodes = { stories, byId };
      this.cache.set(key, nodes);
    }
    return nodes;
  }
}

/** Keeps the Stories view's header description ("4/12 passing", "2 problems") current. */
export function bindStoriesViewDescription(view: vscode.TreeView<unknown>, prds: PrdWorkspace): vscode.Disposable {
  const update = (): void => {
    const entries = prds.list();
    if (entries.length !== 1) {
      view.description = undefined;
      return;
    }
    const a = entries[0].analysis;
    const c = a.readiness.counts;
    view.description = a.readable ? `${c.done}/${c.total} passing` : `${a.problems.length} problem${a.problems.length === 1 ? '' : 's'}`;
  };
  update();
  return prds.onDidChange(update);
}
