/**
 * What the task-graph page knows: the latest graph, layout and run status from the host, the view
 * state kept with setState (zoom, pan, selection, filters, focus, direction), and what the status
 * line says. The questions every part of the page asks of it (which story is selected, which are
 * hidden, which match the search) are answered here, once.
 */
import type { StoryDetails } from './detail';
import type { Derived, GraphMessage, GraphNodeDto, LayoutDto, RunMessage, RunningStoryDto, StoryWait, ViewState } from './model';
import type { Rejected } from './status';
import { loadViewState, saveViewState } from './vscode';

export type Mode = 'sidebar' | 'editor';

/** A line of the status area, and the condition it states (notices.ts). */
export interface Notice {
  readonly level: 'info' | 'error';
  readonly message: string;
  readonly cycle?: string[];
  /** True while what the line says still holds: it is shown only then. */
  readonly holds: (s: PageState) => boolean;
}

export class PageState {
  graph?: GraphMessage;
  layout?: LayoutDto;
  derived?: Derived;
  run: RunMessage = { type: 'run', running: false, stories: [], lastOutcome: [] };
  /** The stories agents work on now (the run message's), by story id: each gets its own mark. */
  running: ReadonlyMap<string, RunningStoryDto> = new Map();
  /** The run message's last outcomes by story id (a Map: any string is a story id). */
  outcomes: ReadonlyMap<string, string> = new Map();
  /** Why each ready story a parallel run has not started waits, by story id (the run message's). */
  waits: ReadonlyMap<string, StoryWait> = new Map();
  readonly view: ViewState;
  /** True when the view state was kept from an earlier load of the page. */
  readonly restored: boolean;
  selectedEdge?: number;
  /** The selected story's description and criteria (editor page only), as the host last sent them. */
  details?: StoryDetails;
  empty?: string;
  notice?: Notice;
  /** The last message the page refused (what was wrong), shown until one of its kind is accepted. */
  rejected?: Rejected;
  /** The stories of a refused dependency's cycle. */
  cycleHighlight = new Set<number>();

  constructor(readonly mode: Mode) {
    const { state, restored } = loadViewState();
    this.view = state;
    this.restored = restored;
  }

  save(): void {
    saveViewState(this.view);
  }

  /** The notice while it holds; one that stopped holding is dropped, with the cycle it highlighted. */
  liveNotice(): Notice | undefined {
    if (this.notice && !this.notice.holds(this)) {
      this.notice = undefined;
      this.cycleHighlight = new Set();
    }
    return this.notice;
  }

  selectedIndex(): number | undefined {
    return this.view.selected !== undefined ? this.derived?.byId.get(this.view.selected) : undefined;
  }

  selectedNode(): GraphNodeDto | undefined {
    const i = this.selectedIndex();
    return i === undefined ? undefined : this.graph?.nodes[i];
  }

  /** The stories whose id or title holds the search text (undefined: no search). */
  matches(): Set<number> | undefined {
    const q = this.view.search.trim().toLowerCase();
    if (!q || !this.graph) {
      return undefined;
    }
    const out = new Set<number>();
    this.graph.nodes.forEach((n, i) => {
      if (n.id.toLowerCase().includes(q) || n.title.toLowerCase().includes(q)) {
        out.add(i);
      }
    });
    return out;
  }

  /** True when the filters hide story i (done stories, or out of focus). */
  hidden(i: number): boolean {
    const g = this.graph;
    if (!g) {
      return true;
    }
    const sel = this.selectedIndex();
    if (this.view.focus && sel !== undefined && this.derived) {
      const near = i === sel || this.derived.blockers[sel].includes(i) || this.derived.dependents[sel].includes(i);
      if (!near) {
        return true;
      }
    }
    return this.view.hideDone && g.nodes[i].state === 'done' && i !== sel;
  }

  /** An edge as words: "US-001 → US-002". */
  edgeWords(k: number): string {
    const g = this.graph;
    const e = g?.edges[k];
    return g && e ? `${g.nodes[e[0]].id} → ${g.nodes[e[1]].id}` : '';
  }

  /** Stories in the same wave (or group) as story i, in the order they are shown. */
  peersOf(i: number): number[] {
    const g = this.graph as GraphMessage;
    const n = g.nodes[i];
    let peers: number[];
    if (n.wave !== null) {
      peers = [...g.waves[n.wave]];
    } else if (n.state === 'done') {
      peers = g.nodes.map((x, k) => (x.state === 'done' ? k : -1)).filter((k) => k >= 0);
    } else {
      peers = [...g.unschedulable];
    }
    peers = peers.filter((k) => !this.hidden(k));
    if (this.mode === 'editor' && this.layout) {
      const l = this.layout;
      peers.sort((a, b) => l.y[a] - l.y[b] || l.x[a] - l.x[b]);
    }
    return peers;
  }
}
