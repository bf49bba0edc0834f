/**
 * The task-graph page, composed: what it knows (state.ts), the drawing (drawing.ts, editor) or the
 * wave list (waveList.ts, side bar), the detail pane (detail.ts), the toolbar (toolbar.ts), the
 * input (input.ts), the status line (status.ts). This module takes the host's messages in —
 * validated (graphProtocol.ts), and an answer only when it answers the page's latest request of its
 * kind — and says what to draw again. Story text only ever reaches the DOM as text.
 */
import { type HostMessage, outcomesOf, parseHostMessage, waitsOf } from '../../../src/core/webview/graphProtocol';
import { DetailPane } from './detail';
import { Drawing } from './drawing';
import { bindKeyboard, bindPanZoom, bindPointer } from './input';
import { legend } from './legend';
import { derive, el, tickElapsed } from './model';
import { edgeNotice, hostNotice } from './notices';
import { type Mode, type Notice, PageState } from './state';
import { statusParts } from './status';
import { Toolbar } from './toolbar';
import { answeredKind, isCurrentAnswer, post } from './vscode';
import { WaveList } from './waveList';

export class GraphApp {
  private readonly state: PageState;
  private readonly status = el('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
  private readonly body = el('div', { class: 'body' });
  private readonly toolbar: Toolbar;
  private readonly drawing?: Drawing;
  private readonly detail?: DetailPane;
  private readonly list?: WaveList;
  private firstGraph = true;
  private statusKey = '';
  /** Answers dropped because a newer request of their kind was made (the UI tests read data-late-answers). */
  private lateAnswers = 0;
  private timer?: number;

  constructor(
    private readonly root: HTMLElement,
    mode: Mode,
  ) {
    const state = (this.state = new PageState(mode));
    root.replaceChildren();
    root.removeAttribute('aria-busy');
    root.className = `app mode-${mode}`;
    if (mode === 'editor') {
      const drawing = (this.drawing = new Drawing({
        graph: () => state.graph,
        layout: () => state.layout,
        derived: () => state.derived,
        running: () => state.running,
        outcomes: () => state.outcomes,
        waits: () => state.waits,
        view: () => state.view,
        selected: () => state.selectedIndex(),
        selectedEdge: () => state.selectedEdge,
        matches: () => state.matches(),
        hidden: (i) => state.hidden(i),
        flagged: (i) => state.cycleHighlight.has(i),
        onViewChange: () => state.save(),
      }));
      drawing.root.tabIndex = -1;
      bindPointer(drawing, {
        nodeClick: (i) => this.select(i, true),
        nodeOpen: (i) => this.open(i),
        edgeClick: (k) => {
          state.selectedEdge = k;
          drawing.render();
          drawing.root.focus();
          this.say(edgeNotice(k, state));
        },
        runClick: (id) => post({ type: 'showTerminal', id }),
      });
      bindPanZoom(drawing, state);
      this.detail = new DetailPane(
        () => state.selectedNode(),
        () => state.graph,
        () => state.details,
      );
      // The legend docks under the drawing and the detail pane beside it: both take room from the
      // drawing instead of lying over its stories.
      const column = el('div', { class: 'graph-column' });
      column.append(drawing.root, legend());
      this.body.append(column, this.detail.root);
    } else {
      this.list = new WaveList(state, { select: (i) => this.select(i, true), open: (i) => this.open(i) });
      this.body.append(this.list.root);
    }
    this.toolbar = new Toolbar(state, {
      fit: () => this.drawing?.fit(),
      zoomBy: (f) => this.drawing?.zoomBy(f),
      render: () => this.render(),
      selectAndFocus: (i) => {
        this.select(i, true);
        this.focus(i);
      },
    });
    root.append(this.toolbar.root, this.status, this.body);
    this.toolbar.sync();
    bindKeyboard(root, state, { select: (i) => this.select(i, true), open: (i) => this.open(i), focus: (i) => this.focus(i) });
    window.addEventListener('message', (e: MessageEvent) => this.receive(e.data));
    this.timer = window.setInterval(() => {
      if (state.running.size > 0) {
        tickElapsed(root, Date.now());
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
      this.state.rejected = { type, error: parsed.error };
      this.renderStatus();
      return;
    }
    if (this.state.rejected?.type === parsed.message.type) {
      this.state.rejected = undefined;
    }
    const m = parsed.message;
    if ((m.type === 'details' || m.type === 'notice') && !isCurrentAnswer(m.answers)) {
      // a late answer: the page asked again (another story, newer text) since
      this.lateAnswers += 1;
      this.root.dataset.lateAnswers = String(this.lateAnswers);
      return;
    }
    this.apply(m);
  }

  private apply(m: HostMessage): void {
    const s = this.state;
    switch (m.type) {
      case 'graph': {
        const first = this.firstGraph;
        const keepSelection = s.view.selected;
        s.graph = m;
        s.empty = undefined;
        s.derived = derive(m);
        if (m.layout) {
          s.layout = m.layout;
          if (m.layout.direction !== s.view.direction) {
            if (this.firstGraph && s.restored) {
              // the page was reloaded with another direction kept: ask for it
              post({ type: 'setDirection', direction: s.view.direction });
            } else {
              s.view.direction = m.layout.direction;
            }
          }
        }
        if (s.selectedEdge !== undefined && s.selectedEdge >= m.edges.length) {
          s.selectedEdge = undefined;
        }
        s.view.selected = keepSelection;
        const fitNow = this.firstGraph && !s.restored;
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
        s.run = m;
        s.running = new Map(m.stories.map((r) => [r.storyId, r]));
        s.outcomes = outcomesOf(m);
        s.waits = waitsOf(m);
        this.render();
        return;
      case 'empty':
        s.graph = undefined;
        s.layout = undefined;
        s.derived = undefined;
        s.empty = m.message;
        this.render();
        return;
      case 'select': {
        const i = s.derived?.byId.get(m.id);
        if (i !== undefined) {
          this.select(i, false);
          this.drawing?.reveal(i);
        }
        return;
      }
      case 'details':
        if (m.id === s.view.selected) {
          s.details = m;
          this.detail?.render();
        }
        return;
      case 'notice':
        s.notice = hostNotice(m, answeredKind(m.answers), s);
        s.cycleHighlight = new Set((m.cycle ?? []).map((id) => s.derived?.byId.get(id)).filter((i): i is number => i !== undefined));
        this.renderStatus();
        this.drawing?.schedule();
        return;
    }
  }

  // ---- actions

  private select(i: number, fromUser: boolean): void {
    const s = this.state;
    const n = s.graph?.nodes[i];
    if (!n) {
      return;
    }
    s.view.selected = n.id;
    s.selectedEdge = undefined;
    s.save();
    this.requestDetails();
    if (fromUser) {
      post({ type: 'select', id: n.id });
    }
    this.render();
    if (fromUser && s.view.focus) {
      this.drawing?.fit();
    }
    this.root.classList.toggle('has-selection', true);
  }

  /** The editor's detail pane shows the selected story's long text: ask the host for it (again: it may have changed). */
  private requestDetails(): void {
    const id = this.state.view.selected;
    if (this.state.mode === 'editor' && id !== undefined && this.state.derived?.byId.has(id)) {
      post({ type: 'details', id });
    }
  }

  private open(i: number): void {
    const n = this.state.graph?.nodes[i];
    if (n) {
      post({ type: 'open', id: n.id });
    }
  }

  private focus(i: number): void {
    if (this.drawing) {
      this.drawing.focusNode(i);
    } else {
      this.list?.focus(i);
    }
  }

  private say(notice: Notice): void {
    this.state.notice = notice;
    this.renderStatus();
  }

  // ---- rendering

  private render(): void {
    this.renderStatus();
    this.toolbar.sync();
    this.drawing?.render();
    this.detail?.render();
    this.list?.render();
  }

  private renderStatus(): void {
    const s = this.state;
    const highlighted = s.cycleHighlight.size > 0;
    const notice = s.liveNotice();
    if (highlighted && s.cycleHighlight.size === 0) {
      this.drawing?.schedule(); // the notice that flagged a cycle went with it
    }
    const parts = statusParts({ empty: s.empty, graph: s.graph, run: s.run, notice, rejected: s.rejected });
    // Unchanged lines stay: replacing them would make the page lay out again for nothing.
    const key = parts.map((p) => p.outerHTML).join('');
    if (key !== this.statusKey) {
      this.statusKey = key;
      this.status.replaceChildren(...parts);
    }
    this.root.classList.toggle('is-stale', s.graph?.stale === true);
  }
}

/** A performance mark (the workbench benchmark reads where the first paint's time goes). */
function mark(name: string): void {
  performance.mark(name);
}
