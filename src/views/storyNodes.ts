/** The nodes of the Stories tree. Each builds its own TreeItem; the provider only wires them. */
import * as vscode from 'vscode';
import type { NeedsYouItemNode, NeedsYouNode } from './needsYouNodes';
import type { Problem } from '../core/prd/problems';
import { presentStory } from '../core/prd/present';
import type { StoryState } from '../core/prd/readiness';
import { STORY_STATES, type StoryStateKey } from '../core/vocabulary';
import { Commands } from '../constants';
import type { LearningRef } from '../services/memoryWorkspace';
import type { PrdEntry, RefusedPrd } from '../services/prdWorkspace';
import { toRange } from '../util/ranges';

export type StoryTreeNode = RefusedNode | FolderNode | ProblemsNode | ProblemNode | InfoNode | InfoDetailNode | StoryNode | CriterionNode | LinkNode | LearningNode | ExtraStoryChild | NeedsYouNode | NeedsYouItemNode;

/** A child of a story contributed by another layer (the GitHub layer's issue artifacts). */
export interface ExtraStoryChild {
  /** `extra:<what>`, so it never narrows to one of the Stories tree's own kinds. */
  readonly kind: `extra:${string}`;
  readonly parent: StoryNode;
  treeItem(): vscode.TreeItem;
}

/** A learning recorded for a story in progress.txt. */
export type StoryLearningRef = LearningRef;

/** A state's icon and colour from the one vocabulary; a running story's spins. */
function stateIcon(key: StoryStateKey): vscode.ThemeIcon {
  const s = STORY_STATES[key];
  return icon(key === 'running' ? `${s.codicon}~spin` : s.codicon, s.color);
}

function icon(id: string, color?: string): vscode.ThemeIcon {
  return new vscode.ThemeIcon(id, color ? new vscode.ThemeColor(color) : undefined);
}


export class FolderNode {
  readonly kind = 'folder';
  readonly parent = undefined;
  constructor(readonly entry: PrdEntry) {}

  treeItem(): vscode.TreeItem {
    const a = this.entry.analysis;
    const item = new vscode.TreeItem(this.entry.folder.name, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `folder:${this.entry.folder.uri.toString()}`;
    const c = a.readiness.counts;
    item.description = a.readable ? `${c.done}/${c.total} passing${a.readiness.next ? ` · next ${a.readiness.next.story.id}` : ''}` : 'prd.json has problems';
    item.iconPath = icon(a.problems.length > 0 ? 'warning' : 'root-folder');
    item.contextValue = 'folder';
    item.resourceUri = this.entry.uri;
    item.tooltip = this.entry.uri.fsPath;
    return item;
  }
}

/** A folder whose `ralph.prdPath` leads outside it: nothing was read, and this says why. */
export class RefusedNode {
  readonly kind = 'refused';
  readonly parent = undefined;
  constructor(
    readonly refusal: RefusedPrd,
    private readonly multiRoot: boolean,
  ) {}

  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.refusal.message, vscode.TreeItemCollapsibleState.None);
    item.id = `refused:${this.refusal.folder.uri.toString()}`;
    item.description = this.multiRoot ? this.refusal.folder.name : undefined;
    item.iconPath = icon('error', 'list.errorForeground');
    item.contextValue = 'refusedPath';
    item.tooltip = `${this.refusal.message}\nPaths from settings must stay inside the workspace folder (symbolic links are followed). Change ralph.prdPath.`;
    item.command = { command: 'workbench.action.openSettings', title: 'Open Settings', arguments: ['ralph.prdPath'] };
    return item;
  }
}

export class ProblemsNode {
  readonly kind = 'problems';
  constructor(
    readonly entry: PrdEntry,
    readonly parent: FolderNode | undefined,
  ) {}

  treeItem(): vscode.TreeItem {
    const n = this.entry.analysis.problems.length;
    const file = vscode.workspace.asRelativePath(this.entry.uri, false);
    const item = new vscode.TreeItem(`${n} problem${n === 1 ? '' : 's'} in ${file}`, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `problems:${this.entry.uri.toString()}`;
    item.iconPath = icon('error', 'list.errorForeground');
    item.contextValue = 'problems';
    item.tooltip = this.entry.analysis.readable
      ? 'These problems block some stories; the rest can still run.'
      : 'prd.json cannot be read as a list of stories until these are fixed.';
    return item;
  }
}

export class ProblemNode {
  readonly kind = 'problem';
  constructor(
    readonly entry: PrdEntry,
    readonly problem: Problem,
    readonly parent: ProblemsNode,
    private readonly index: number,
  ) {}

  treeItem(): vscode.TreeItem {
    const p = this.problem;
    const item = new vscode.TreeItem(p.message, vscode.TreeItemCollapsibleState.None);
    item.id = `problem:${this.entry.uri.toString()}:${this.index}`;
    item.description = `line ${p.range.start.line + 1}`;
    item.iconPath = icon(p.severity === 'error' ? 'error' : 'warning', p.severity === 'error' ? 'list.errorForeground' : 'list.warningForeground');
    item.contextValue = `problem ${p.code}${p.fixes && p.fixes.length > 0 ? ' fixable' : ''}`;
    item.tooltip = `${p.message}\n${vscode.workspace.asRelativePath(this.entry.uri, false)}:${p.range.start.line + 1}:${p.range.start.character + 1}`;
    item.command = { command: Commands.openProblem, title: 'Go to Problem', arguments: [this.entry.uri, toRange(p.range)] };
    return item;
  }
}

export class InfoNode {
  readonly kind = 'info';
  constructor(
    readonly entry: PrdEntry,
    readonly label: string,
    readonly details: readonly string[],
    readonly parent: FolderNode | undefined,
    private readonly codicon: string,
  ) {}

  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(
      this.label,
      this.details.length > 0 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `info:${this.entry.uri.toString()}:${this.label}`;
    item.iconPath = icon(this.codicon);
    item.contextValue = 'info';
    item.tooltip = [this.label, ...this.details].join('\n');
    return item;
  }

  children(): InfoDetailNode[] {
    return this.details.map((d, i) => new InfoDetailNode(this, d, i));
  }
}

export class InfoDetailNode {
  readonly kind = 'infoDetail';
  constructor(
    readonly parent: InfoNode,
    readonly text: string,
    private readonly index: number,
  ) {}

  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.text, vscode.TreeItemCollapsibleState.None);
    item.id = `info-detail:${this.parent.entry.uri.toString()}:${this.index}`;
    item.iconPath = icon('debug-breakpoint-log-unverified');
    item.tooltip = this.text;
    item.contextValue = 'infoDetail';
    return item;
  }
}

/** The iteration running a story now: the tree marks that story. */
export interface RunningIteration {
  readonly storyId: string;
  readonly iteration: number;
  readonly maxIterations: number;
}

/**
 * A story row. Its state word comes right after the id, in the label, so it stays visible in a
 * narrow side bar (the description is cut first): `US-007 · blocked · Bulk-change priority…`.
 * A stale node is a story from the last good read of a prd.json that cannot be read now.
 */
export class StoryNode {
  readonly kind = 'story';
  constructor(
    readonly entry: PrdEntry,
    readonly state: StoryState,
    readonly problems: readonly Problem[],
    readonly parent: FolderNode | undefined,
    private readonly titleOf: (id: string) => string | undefined,
    /** The iteration running this story now (several stories run at once in a parallel run). */
    private readonly running: (storyId: string) => RunningIteration | undefined = () => undefined,
    readonly stale = false,
    /** Where the story stands on GitHub (issue 20: its run, its pull request), when published. */
    private readonly remote?: { readonly label: string; readonly url?: string },
  ) {}

  get id(): string {
    return this.state.story.id;
  }

  treeItem(): vscode.TreeItem {
    const p = presentStory(this.state, this.problems, this.titleOf);
    const s = this.state.story;
    const run = this.stale ? undefined : this.running(s.id);
    const runningHere = run !== undefined && run.storyId === s.id && s.id !== '';
    const key: StoryStateKey = this.stale ? 'stale' : runningHere ? 'running' : p.status;
    const word = STORY_STATES[key].word;
    const id = s.id || `Story #${s.index + 1}`;
    const label = `${id} · ${word}${s.title ? ` · ${s.title}` : ''}`;
    const hasChildren = !this.stale && s.acceptanceCriteria.length + s.blockedBy.length + this.state.blocks.length > 0;
    const item = new vscode.TreeItem(label, hasChildren ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = `${this.stale ? 'stale-story' : 'story'}:${this.entry.uri.toString()}:${s.index}`;
    if (this.stale) {
      item.description = `(stale — last good read) ${p.description}`;
      item.iconPath = stateIcon('stale');
      // Not "story": no action (run, mark) is offered on what may no longer be in the file.
      item.contextValue = 'staleStory';
      item.tooltip = `prd.json cannot be read right now; this is ${p.label} as it was at the last good read. Fix the problems above to see the stories again.`;
      item.command = { command: Commands.openPrd, title: 'Open prd.json', arguments: [this.entry.uri] };
    } else {
      const remote = this.remote ? `☁ ${this.remote.label} · ` : '';
      item.description = runningHere ? `${word} · ${run.iteration}/${run.maxIterations} · ${remote}${p.description}` : `${remote}${p.description}`;
      item.iconPath = stateIcon(key);
      item.contextValue = runningHere ? `${p.contextValue} running` : p.contextValue;
      const tooltip = new vscode.MarkdownString(p.tooltip, true);
      if (this.remote) {
        // The label is ours ("PR #12 open"); the URL is GitHub's, as a link (never a command).
        tooltip.appendMarkdown(`\n\nOn GitHub: ${this.remote.url && /^https?:\/\//.test(this.remote.url) ? `[${this.remote.label}](${this.remote.url.replace(/[()\s]/g, encodeURIComponent)})` : this.remote.label}`);
      }
      tooltip.supportHtml = false;
      item.tooltip = tooltip;
      item.command = { command: Commands.storyOpen, title: 'Open Story in prd.json', arguments: [this] };
    }
    // Screen readers (and the UI tests' row locators) read "US-007: title, state, details".
    item.accessibilityInformation = { label: `${p.label}, ${word}, ${item.description as string}` };
    return item;
  }

  children(nodeFor: (id: string) => StoryNode | undefined, learnings: readonly StoryLearningRef[] = []): (CriterionNode | LinkNode | LearningNode)[] {
    const s = this.state.story;
    const out: (CriterionNode | LinkNode | LearningNode)[] = s.acceptanceCriteria.map((c, i) => new CriterionNode(this, c, i));
    const seen = new Set<string>();
    for (const ref of s.blockedBy) {
      if (!seen.has(ref.id)) {
        seen.add(ref.id);
        out.push(new LinkNode(this, 'blockedBy', ref.id, nodeFor(ref.id), this.state.waitingOn.includes(ref.id)));
      }
    }
    for (const id of this.state.blocks) {
      out.push(new LinkNode(this, 'blocks', id, nodeFor(id), false));
    }
    learnings.forEach((l, i) => out.push(new LearningNode(this, l, i)));
    return out;
  }
}

export class CriterionNode {
  readonly kind = 'criterion';
  constructor(
    readonly parent: StoryNode,
    readonly text: string,
    private readonly index: number,
  ) {}

  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.text, vscode.TreeItemCollapsibleState.None);
    item.id = `criterion:${this.parent.entry.uri.toString()}:${this.parent.state.story.index}:${this.index}`;
    const done = this.parent.state.story.passes;
    item.iconPath = icon(done ? 'check' : 'circle-small');
    item.contextValue = 'criterion';
    item.tooltip = this.text;
    const range = this.parent.state.story.criteriaRanges[this.index];
    if (range) {
      item.command = { command: Commands.openProblem, title: 'Go to Criterion', arguments: [this.parent.entry.uri, toRange(range)] };
    }
    return item;
  }
}

export class LinkNode {
  readonly kind = 'link';
  constructor(
    readonly parent: StoryNode,
    readonly relation: 'blockedBy' | 'blocks',
    readonly targetId: string,
    readonly target: StoryNode | undefined,
    readonly waiting: boolean,
  ) {}

  treeItem(): vscode.TreeItem {
    const verb = this.relation === 'blockedBy' ? 'blocked by' : 'blocks';
    const item = new vscode.TreeItem(`${verb} ${this.targetId}`, vscode.TreeItemCollapsibleState.None);
    item.id = `link:${this.parent.entry.uri.toString()}:${this.parent.state.story.index}:${this.relation}:${this.targetId}`;
    const target = this.target?.state.story;
    if (!target) {
      item.description = 'not a story in prd.json';
      item.iconPath = icon('error', 'list.errorForeground');
    } else {
      const status = target.passes ? STORY_STATES.done.word : this.relation === 'blockedBy' ? 'not passing yet' : this.target ? STORY_STATES[this.target.state.status].word : '';
      item.description = `${target.title}${status ? ` · ${status}` : ''}`;
      const blockedIcon: [string, string | undefined] = this.waiting ? ['arrow-up', 'list.warningForeground'] : ['pass', 'testing.iconPassed'];
      const [codicon, color] = this.relation === 'blockedBy' ? blockedIcon : ['arrow-down', undefined];
      item.iconPath = icon(codicon, color);
      item.command = { command: Commands.storyReveal, title: 'Reveal Story', arguments: [this.target] };
    }
    item.contextValue = this.relation;
    item.tooltip = this.relation === 'blockedBy'
      ? `${this.parent.id} waits until ${this.targetId} passes${this.waiting ? '' : ' (it does)'}. Select to reveal ${this.targetId}.`
      : `${this.targetId} waits on ${this.parent.id}. Select to reveal ${this.targetId}.`;
    return item;
  }
}

export class LearningNode {
  readonly kind = 'learning';
  constructor(
    readonly parent: StoryNode,
    readonly learning: StoryLearningRef,
    private readonly index: number,
  ) {}

  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.learning.text, vscode.TreeItemCollapsibleState.None);
    item.id = `learning:${this.parent.entry.uri.toString()}:${this.parent.state.story.index}:${this.index}`;
    item.description = this.learning.date ? `learning · ${this.learning.date}` : 'learning';
    item.iconPath = icon('lightbulb');
    item.contextValue = 'learning';
    item.tooltip = `${this.learning.text}\n(progress.txt line ${this.learning.line + 1})`;
    item.command = { command: Commands.openAt, title: 'Open Learning', arguments: [this.learning.uri, this.learning.line] };
    return item;
  }
}
