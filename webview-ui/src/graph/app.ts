/**
 * The task-graph page: validates what the host posts (graphProtocol.ts), keeps the latest graph,
 * layout and run status, and renders either the wave list (side bar) or the drawing with its
 * toolbar and detail pane (editor). View state (zoom, pan, selection, filters, focus, direction)
 * is kept with setState. Story text only ever reaches the DOM as text.
 */
import { type HostMessage, outcomesOf, parseHostMessage } from '../../../src/core/webview/graphProtocol';
import { artifactBadgeView } from './artifactBadge';
import { DetailPane, type StoryDetails } from './detail';
import { Drawing } from './drawing';
import { legend } from './legend';
import { type Rejected, statusParts } from './status';
import { accessibleName, type Derived, derive, el, elapsed, type GraphMessage, iconOf, joinAnd, type LayoutDto, type RunMessage, type ViewState } from './model';
import { loadViewState, post, saveViewState } from './vscode';

type Mode = 'sidebar' | 'editor';

export class GraphApp {
  private graph?: GraphMessage;
  private layout?: LayoutDto;
  private derived?: Derived;
  private run: RunMessage = { type: 'run', running: false, lastOutcome: [] };
  /** The run message's last outcomes by story id (a Map: any string is a story id). */
  private outcomes: ReadonlyMap<string, string> = new Map();
  private view: ViewState;
  private restored: boolean;
  private selectedEdge?: number;
  /** The selected story's description and criteria (editor page only), as the host last sent them. */
  private details?: StoryDetails;
  private empty?: string;
  private notice?: { level: 'info' | 'error'; message: string; cycle?: string[] };
  /** The last message the page refused (what was wrong), shown until one of its kind is accepted. */
  private rejected?: Rejected;
  private cycleHighlight = new Set<number>();
  private readonly header = el('div', { class: 'header' });
  private readonly status = el('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
  private readonly body = el('div', { class: 'body' });
  private readonly drawing?: Drawing;
  private readonly detail?: DetailPane;
  private readonly list = el('div', { class: 'wave-list', role: 'tree', 'aria-label': 'Stories by wave' });
  private firstGraph = true;
  private statusKey = '';
  private timer?: number;

  constructor(
    private readonly root: HTMLElement,
    private readonly mode: Mode,
  ) {
    const { state, restored } = loadViewState();
    this.view = state;
    this.restored = restored;
    root.replaceChildren();
    root.removeAttribute('aria-busy');
    root.className = `app mode-${mode}`;
    if (mode === 'editor') {
      this.drawing = new Drawing({
        graph: () => this.graph,
        layout: () => this.layout,
        derived: () => this.derived,
        run: () => this.run,
        outcomes: () => this.outcomes,
        view: () => this.view,
        selected: () => this.selectedIndex(),
        selectedEdge: () => this.selectedEdge,
        matches: () => this.matches(),
        hidden: (i) => this.hidden(i),
        flagged: (i) => this.cycleHighlight.has(i),
        onNodeClick: (i) => this.select(i, true),
        onNodeOpen: (i) => this.open(i),
        onEdgeClick: (k) => {
          this.selectedEdge = k;
          this.drawing?.render();
          this.root.querySelector<HTMLElement>('.canvas-wrap')?.focus();
          this.say(`Edge ${this.edgeWords(k)} selected: press Delete to remove it.`);
        },
        onRunClick: () => post({ type: 'showTerminal' }),
        onViewChange: () => this.save(),
      });
      this.drawing.root.tabIndex = -1;
      this.detail = new DetailPane(
        () => this.selectedNode(),
        () => this.graph,
        () => this.details,
      );
      this.body.append(this.drawing.root, this.detail.root, legend());
    } else {
      this.body.append(this.list);
    }
    root.append(this.header, this.status, this.body);
    this.buildHeader();
    this.syncToolbar();
    root.addEventListener('keydown', (e) => this.onKey(e));
    window.addEventListener('message', (e: MessageEvent) => this.receive(e.data));
    this.timer = window.setInterval(() => {
      if (this.run.running) {
        this.refreshRunMarks();
      }
    }, 1000);
    mark('ralph:ready');
    post({ type: 'ready' });
  }

  dispose(): void {
    window.clearInterval(this.timer);
  }

  // ---- messages

  private receive(data: unknown): void {
    const first = this.firstGraph && typeof data === 'object' && data !== null && (data as { type?: unknown }).type === 'graph';
    if (first) {
      mark('ralph:graph-received');
    }
    const parsed = parseHostMessage(data);
    if (first) {
      mark('ralph:graph-validated');
    }
    if (!parsed.ok) {
      // never a blank or frozen page without a word: say what was wrong, keep the last good picture
      console.warn(`[task graph] ignored a message: ${parsed.error}`);
      const type = typeof data === 'object' && data !== null ? String((data as { type?: unknown }).type) : typeof data;
      this.rejected = { type, error: parsed.error };
      this.renderStatus();
      return;
    }
    if (this.rejected?.type === parsed.message.type) {
      this.rejected = undefined;
    }
    this.apply(parsed.message);
  }

  private apply(m: HostMessage): void {
    switch (m.type) {
      case 'graph': {
        const first = this.firstGraph;
        const keepSelection = this.view.selected;
        this.graph = m;
        this.empty = undefined;
        this.derived = derive(m);
        if (m.layout) {
          this.layout = m.layout;
          if (m.layout.direction !== this.view.direction) {
            if (this.firstGraph && this.restored) {
              // the page was reloaded with another direction kept: ask for it
              post({ type: 'setDirection', direction: this.view.direction });
            } else {
              this.view.direction = m.layout.direction;
            }
          }
        }
        if (this.selectedEdge !== undefined && this.selectedEdge >= m.edges.length) {
          this.selectedEdge = undefined;
        }
        this.view.selected = keepSelection;
        const fitNow = this.firstGraph && !this.restored;
        this.firstGraph = false;
        if (fitNow) {
          // fit before the first drawing: drawing at the default zoom first would build SVG for
          // hundreds of stories only to replace it with the overview a frame later
          this.drawing?.fit(false);
        }
        this.requestDetails();
        this.render();
        if (first) {
          mark('ralph:graph-drawn');
        }
        return;
      }
      case 'run':
        this.run = m;
        this.outcomes = outcomesOf(m);
        this.render();
        return;
      case 'empty':
        this.graph = undefined;
        this.layout = undefined;
        this.derived = undefined;
        this.empty = m.message;
        this.render();
        return;
      case 'select': {
        const i = this.derived?.byId.get(m.id);
        if (i !== undefined) {
          this.select(i, false);
          this.drawing?.reveal(i);
        }
        return;
      }
      case 'details':
        if (m.id === this.view.selected) {
          this.details = m;
          this.detail?.render();
        }
        return;
      case 'notice':
        this.notice = { level: m.level, message: m.message, cycle: m.cycle };
        this.cycleHighlight = new Set((m.cycle ?? []).map((id) => this.derived?.byId.get(id)).filter((i): i is number => i !== undefined));
        this.renderStatus();
        this.drawing?.schedule();
        return;
    }
  }

  // ---- state helpers

  private save(): void {
    saveViewState(this.view);
  }

  private selectedIndex(): number | undefined {
    return this.view.selected !== undefined ? this.derived?.byId.get(this.view.selected) : undefined;
  }

  private selectedNode(): GraphMessage['nodes'][number] | undefined {
    const i = this.selectedIndex();
    return i === undefined ? undefined : this.graph?.nodes[i];
  }

  private matches(): Set<number> | undefined {
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

  private hidden(i: number): boolean {
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

  private select(i: number, fromUser: boolean): void {
    const n = this.graph?.nodes[i];
    if (!n) {
      return;
    }
    this.view.selected = n.id;
    this.selectedEdge = undefined;
    this.save();
    this.requestDetails();
    if (fromUser) {
      post({ type: 'select', id: n.id });
    }
    this.render();
    if (fromUser && this.view.focus) {
      this.drawing?.fit();
    }
    this.root.classList.toggle('has-selection', true);
  }

  /** The editor's detail pane shows the selected story's long text: ask the host for it (again: it may have changed). */
  private requestDetails(): void {
    const id = this.view.selected;
    if (this.mode === 'editor' && id !== undefined && this.derived?.byId.has(id)) {
      post({ type: 'details', id });
    }
  }

  private open(i: number): void {
    const n = this.graph?.nodes[i];
    if (n) {
      post({ type: 'open', id: n.id });
    }
  }

  private say(message: string): void {
    this.notice = { level: 'info', message };
    this.renderStatus();
  }

  private edgeWords(k: number): string {
    const g = this.graph;
    const e = g?.edges[k];
    return g && e ? `${g.nodes[e[0]].id} → ${g.nodes[e[1]].id}` : '';
  }

  // ---- rendering

  private render(): void {
    this.renderStatus();
    this.syncToolbar();
    if (this.mode === 'editor') {
      this.drawing?.render();
      this.detail?.render();
    } else {
      this.renderList();
    }
  }

  private renderStatus(): void {
    const parts = statusParts({ empty: this.empty, graph: this.graph, run: this.run, notice: this.notice, rejected: this.rejected });
    // Unchanged lines stay: replacing them would make the page lay out again for nothing.
    const key = parts.map((p) => p.outerHTML).join('');
    if (key !== this.statusKey) {
      this.statusKey = key;
      this.status.replaceChildren(...parts);
    }
    this.root.classList.toggle('is-stale', this.graph?.stale === true);
  }

  private refreshRunMarks(): void {
    this.renderStatus();
    this.drawing?.schedule();
    if (this.mode === 'sidebar') {
      this.renderList();
    }
  }

  // ---- side bar: the wave list

  private renderList(): void {
    const g = this.graph;
    const d = this.derived;
    const rows: HTMLElement[] = [];
    if (!g || !d) {
      this.list.replaceChildren();
      return;
    }
    const runningIndex = this.run.running && this.run.storyId !== undefined ? d.byId.get(this.run.storyId) : undefined;
    const selected = this.selectedIndex();
    const q = this.matches();
    const row = (i: number): HTMLElement => {
      const n = g.nodes[i];
      const running = i === runningIndex;
      const r = el('div', {
        class: `row state-${n.state}${n.critical ? ' critical' : ''}${n.inCycle ? ' cycle' : ''}${running ? ' running' : ''}${i === selected ? ' selected' : ''}${q?.has(i) ? ' match' : ''}`,
        role: 'treeitem',
        tabindex: i === (selected ?? -1) ? '0' : '-1',
        'aria-label': accessibleName(n, running),
        'aria-selected': i === selected ? 'true' : 'false',
        'data-id': n.id,
        'data-index': String(i),
      });
      const icon = iconOf(n, running);
      r.append(el('span', { class: `codicon codicon-${icon.codicon} state-icon`, 'aria-hidden': 'true' }));
      r.append(el('span', { class: 'id' }, n.id));
      r.append(el('span', { class: 'title' }, n.title));
      if (n.critical) {
        r.append(el('span', { class: 'codicon codicon-flame crit', title: 'On the critical path', 'aria-hidden': 'true' }));
      }
      if (n.artifacts) {
        const a = artifactBadgeView(n.artifacts);
        const mark = el('span', { class: `artifacts${a.warn ? ' warn' : ''}`, title: a.tooltip, 'data-issue': String(n.artifacts.issue) });
        mark.append(el('span', { class: `codicon codicon-${a.warn ? 'warning' : 'issues'}`, 'aria-hidden': 'true' }), el('span', {}, a.text));
        r.append(mark);
      }
      if (n.unblocks.total > 0) {
        r.append(el('span', { class: 'count', title: `Unblocks ${n.unblocks.total} (${n.unblocks.direct} directly)` }, `+${n.unblocks.total}`));
      }
      if (running) {
        const mark = el('button', { class: 'run-mark', title: "Show the agent's terminal" }, `${this.run.iteration ?? '?'}/${this.run.maxIterations ?? '?'} · ${elapsed(this.run.startedAt, Date.now())}`);
        mark.addEventListener('click', (e) => {
          e.stopPropagation();
          post({ type: 'showTerminal' });
        });
        r.append(mark);
      } else if (this.outcomes.get(n.id) && n.state !== 'done') {
        r.append(el('span', { class: 'outcome', title: 'Last run' }, this.outcomes.get(n.id) ?? ''));
      }
      r.addEventListener('click', () => this.select(i, true));
      r.addEventListener('dblclick', () => this.open(i));
      return r;
    };
    const group = (label: string, items: readonly number[], extra?: string): void => {
      if (items.length === 0) {
        return;
      }
      const gEl = el('div', { class: 'group', role: 'group', 'aria-label': label });
      const h = el('div', { class: 'group-label' }, label);
      if (extra) {
        h.append(el('span', { class: 'group-extra' }, ` ${extra}`));
      }
      gEl.append(h);
      for (const i of items) {
        if (!this.hidden(i)) {
          gEl.append(row(i));
        }
      }
      rows.push(gEl);
    };
    if (g.nodes.length === 0) {
      rows.push(el('div', { class: 'empty' }, 'No stories in prd.json yet.'));
    }
    g.waves.forEach((w, k) => group(`Wave ${k + 1}`, w, w.length > 1 ? `· ${w.length} can run in parallel` : undefined));
    group('Unschedulable', g.unschedulable, '· in or behind a cycle or an unknown id');
    const done = g.nodes.map((n, i) => (n.state === 'done' ? i : -1)).filter((i) => i >= 0);
    group('Done', done, `· ${done.length}`);
    this.list.replaceChildren(...rows);
    if (selected !== undefined) {
      this.list.querySelector<HTMLElement>('.row.selected')?.scrollIntoView({ block: 'nearest' });
    } else {
      this.list.querySelector<HTMLElement>('.row')?.setAttribute('tabindex', '0');
    }
  }

  // ---- toolbar

  private toolbarButtons = new Map<string, HTMLElement>();

  private buildHeader(): void {
    const bar = el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Task graph' });
    const button = (key: string, icon: string, label: string, onClick: () => void, toggle = false): void => {
      const b = document.createElement('vscode-toolbar-button');
      b.setAttribute('icon', icon);
      b.setAttribute('label', label);
      b.setAttribute('title', label);
      b.dataset.action = key;
      if (toggle) {
        b.setAttribute('toggleable', '');
      }
      b.addEventListener('click', onClick);
      this.toolbarButtons.set(key, b);
      bar.append(b);
    };
    if (this.mode === 'editor') {
      button('fit', 'screen-full', 'Fit to view', () => this.drawing?.fit());
      button('zoomIn', 'zoom-in', 'Zoom in', () => this.drawing?.zoomBy(1.25));
      button('zoomOut', 'zoom-out', 'Zoom out', () => this.drawing?.zoomBy(0.8));
      button('direction', 'arrow-swap', 'Layout direction: left to right / top to bottom', () => {
        this.view.direction = this.view.direction === 'LR' ? 'TB' : 'LR';
        this.save();
        post({ type: 'setDirection', direction: this.view.direction });
      });
      button('focus', 'target', 'Focus: the selected story and its neighbours', () => {
        this.view.focus = !this.view.focus;
        this.save();
        this.render();
        this.drawing?.fit();
      }, true);
    } else {
      button('openInEditor', 'type-hierarchy', 'Open Task Graph in Editor', () => post({ type: 'openInEditor' }));
    }
    button('hideDone', 'eye-closed', 'Hide done stories', () => {
      this.view.hideDone = !this.view.hideDone;
      this.save();
      this.render();
    }, true);
    button('pickFolder', 'root-folder-opened', 'Choose prd.json… (this workspace has several)', () => post({ type: 'pickFolder' }));
    button('copyText', 'list-ordered', 'Copy as text (the waves)', () => post({ type: 'copy', format: 'text' }));
    button('copyMermaid', 'copy', 'Copy as Mermaid', () => post({ type: 'copy', format: 'mermaid' }));
    const search = document.createElement('vscode-textfield') as HTMLElement & { value: string };
    search.setAttribute('placeholder', 'Search stories');
    search.setAttribute('aria-label', 'Search stories by id or title');
    search.className = 'search';
    search.value = this.view.search;
    search.addEventListener('input', () => {
      this.view.search = search.value;
      this.save();
      this.render();
    });
    search.addEventListener('keydown', (e: KeyboardEvent) => {
      if (e.key === 'Enter') {
        const first = [...(this.matches() ?? [])][0];
        if (first !== undefined) {
          this.select(first, true);
          this.focusIndex(first);
        }
      }
    });
    this.header.append(bar, search);
  }

  private syncToolbar(): void {
    const set = (key: string, on: boolean): void => {
      const b = this.toolbarButtons.get(key) as (HTMLElement & { checked?: boolean }) | undefined;
      if (b) {
        b.checked = on;
        b.setAttribute('aria-pressed', String(on));
      }
    };
    set('hideDone', this.view.hideDone);
    set('focus', this.view.focus);
    // only a workspace with several prd.json files has a choice to offer
    this.toolbarButtons.get('pickFolder')?.toggleAttribute('hidden', (this.graph?.sources ?? 1) < 2);
  }

  // ---- keyboard: ← to a blocker, → to a dependent, ↑/↓ within a wave, Enter opens, Delete removes the selected edge

  private focusIndex(i: number): void {
    if (this.mode === 'editor') {
      this.drawing?.focusNode(i);
    } else {
      this.list.querySelector<HTMLElement>(`.row[data-index="${i}"]`)?.focus();
    }
  }

  private onKey(e: KeyboardEvent): void {
    const target = e.target as HTMLElement | SVGElement;
    if (target.closest('.detail, vscode-textfield, vscode-textarea, input, textarea')) {
      return;
    }
    const g = this.graph;
    const d = this.derived;
    if (!g || !d) {
      return;
    }
    if ((e.key === 'Delete' || e.key === 'Backspace') && this.selectedEdge !== undefined) {
      const [from, to] = g.edges[this.selectedEdge];
      post({ type: 'removeDependency', story: g.nodes[to].id, blocker: g.nodes[from].id });
      this.selectedEdge = undefined;
      e.preventDefault();
      return;
    }
    const host = target.closest<HTMLElement | SVGElement>('[data-index]');
    const current = host ? Number(host.getAttribute('data-index')) : this.selectedIndex();
    if (current === undefined || Number.isNaN(current)) {
      return;
    }
    let next: number | undefined;
    const byY = (xs: number[]): number[] => (this.layout ? [...xs].sort((a, b) => (this.layout as LayoutDto).y[a] - (this.layout as LayoutDto).y[b]) : xs);
    const visibleOnly = (xs: number[]): number[] => xs.filter((i) => !this.hidden(i));
    switch (e.key) {
      case 'ArrowLeft':
        next = byY(visibleOnly(d.blockers[current]))[0];
        break;
      case 'ArrowRight':
        next = byY(visibleOnly(d.dependents[current]))[0];
        break;
      case 'ArrowUp':
      case 'ArrowDown': {
        const peers = this.peersOf(current);
        const k = peers.indexOf(current);
        next = peers[k + (e.key === 'ArrowUp' ? -1 : 1)];
        break;
      }
      case 'Enter':
        this.open(current);
        e.preventDefault();
        return;
      case ' ':
        this.select(current, true);
        this.focusIndex(current);
        e.preventDefault();
        return;
      default:
        return;
    }
    e.preventDefault();
    if (next !== undefined) {
      this.select(next, true);
      this.focusIndex(next);
    }
  }

  /** Stories in the same wave (or group), in the order they are shown. */
  private peersOf(i: number): number[] {
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

/** A performance mark (the workbench benchmark reads where the first paint's time goes). */
function mark(name: string): void {
  performance.mark(name);
}

export { joinAnd };
