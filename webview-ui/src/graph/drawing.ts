/**
 * The full drawing (editor panel): layered layout from the host, SVG for what is visible (nodes and
 * edges outside the viewport are not in the DOM, so 5,000 stories stay responsive), a canvas
 * overview when the zoom shows more than a few hundred stories at once. Rendering only: the pointer,
 * the wheel and dragging reach it through input.ts (`zoomBy`, `panTo`, `hoverLater`).
 */
import { edgeElement, type EdgeEntry, type EdgeGeometry, edgeGeometryOf, nodeElement, setIfChanged } from './elements';
import { type Derived, type GraphMessage, iterationText, type LayoutDto, lineage, type RunningStoryDto, type StoryWait, svg, type ViewState } from './model';
import { drawOverview } from './overview';
import { type Box, fitView, isFullyVisible, panToShow, READABLE_ZOOM, type Size } from './viewport';

/** Above this many visible stories the drawing switches to the canvas overview. */
const SVG_LIMIT = 600;
/** How long the pointer rests on a node before its lineage is highlighted. */
const HOVER_MS = 120;

interface NodeEntry {
  readonly el: SVGGElement;
  readonly sig: string;
  x: number;
  y: number;
}

export interface DrawingHost {
  graph(): GraphMessage | undefined;
  layout(): LayoutDto | undefined;
  derived(): Derived | undefined;
  /** The stories agents work on now, by story id (each gets its own mark). */
  running(): ReadonlyMap<string, RunningStoryDto>;
  /** The last outcome of each story that ran, by story id. */
  outcomes(): ReadonlyMap<string, string>;
  /** Why each ready story a parallel run has not started waits ("waits for US-004: both change a.ts"). */
  waits(): ReadonlyMap<string, StoryWait>;
  view(): ViewState;
  selected(): number | undefined;
  selectedEdge(): number | undefined;
  matches(): Set<number> | undefined;
  /** Nodes to flag (the stories of a refused dependency's cycle). */
  flagged(i: number): boolean;
  /** Nodes the filters hide (done, out of focus). */
  hidden(i: number): boolean;
  /** The zoom or pan changed (kept with setState). */
  onViewChange(): void;
}

export class Drawing {
  readonly root: HTMLDivElement;
  private readonly svgEl: SVGSVGElement;
  /** The zoomed and panned group (input.ts listens on it for clicks). */
  readonly scene: SVGGElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly edgeLayer: SVGGElement;
  /** The nodes' group (input.ts listens on it for hover). */
  readonly nodeLayer: SVGGElement;
  /** The drawn elements by node or edge index, with a signature of what they show. */
  private readonly nodeEls = new Map<number, NodeEntry>();
  private readonly edgeEls = new Map<number, EdgeEntry>();
  private geometry?: { layout: LayoutDto; edges: (readonly [number, number])[]; boxes: EdgeGeometry[] };
  private hover?: number;
  private hoverTimer = 0;
  private wasLit = false;
  /** The drawing's size, kept by a ResizeObserver. */
  private size?: { w: number; h: number };
  private frame = 0;
  /** How the last frame was drawn (the UI tests read data-render). */
  mode: 'svg' | 'canvas' = 'svg';

  constructor(private readonly host: DrawingHost) {
    this.root = document.createElement('div');
    this.root.className = 'canvas-wrap';
    this.svgEl = svg('svg', { class: 'graph', role: 'group', 'aria-label': 'Task graph' });
    const defs = svg('defs');
    for (const kind of ['edge', 'critical', 'cycle', 'lit']) {
      const m = svg('marker', { id: `arrow-${kind}`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
      m.append(svg('path', { d: 'M0,0 L10,5 L0,10 z', class: `arrow arrow-${kind}` }));
      defs.append(m);
    }
    this.svgEl.append(defs);
    this.scene = svg('g', { class: 'scene' });
    this.edgeLayer = svg('g', { class: 'edges' });
    this.nodeLayer = svg('g', { class: 'nodes' });
    this.scene.append(this.edgeLayer, this.nodeLayer);
    this.svgEl.append(this.scene);
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'overview';
    this.canvas.setAttribute('aria-hidden', 'true');
    this.root.append(this.svgEl, this.canvas);
    // The size comes from the observer: reading clientWidth while rendering would force a layout of
    // the whole page (tens of ms with hundreds of SVG nodes).
    new ResizeObserver((entries) => {
      const r = entries[entries.length - 1]?.contentRect;
      if (r) {
        const before = this.size;
        this.size = { w: r.width, h: r.height };
        if (before && before.w > 0 && (Math.abs(before.w - r.width) > 1 || Math.abs(before.h - r.height) > 1)) {
          this.resized(before);
        }
      }
      this.schedule();
    }).observe(this.root);
  }

  schedule(): void {
    if (this.frame === 0) {
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.render();
      });
    }
  }

  /**
   * The panel changed size (resized, the detail pane opened or closed): the picture fits again,
   * unless the user zoomed or panned by hand; then their view stays, only moved enough to keep
   * the selected story in view when the change hid it.
   */
  private resized(before: Size): void {
    const v = this.host.view();
    if (!v.manual) {
      this.fit(false);
      return;
    }
    const box = this.selectedBox();
    if (box && isFullyVisible(box, v, before) && !isFullyVisible(box, v, this.viewport())) {
      Object.assign(v, panToShow(box, v, this.viewport()));
      this.host.onViewChange();
    }
  }

  /** The selected story's rectangle, when it is drawn (not hidden by a filter). */
  private selectedBox(): Box | undefined {
    const l = this.host.layout();
    const i = this.host.selected();
    if (!l || i === undefined || l.x[i] === undefined || this.host.hidden(i)) {
      return undefined;
    }
    return { x0: l.x[i], y0: l.y[i], x1: l.x[i] + l.nodeWidth, y1: l.y[i] + l.nodeHeight };
  }

  /**
   * Zoom and pan so the whole (filtered) graph fits, never below a readable zoom (viewport.ts: a
   * large graph starts at its first waves and scrolls), the selected story kept in view; drawn at
   * the next frame unless `draw` is false (the caller draws).
   */
  fit(draw = true): void {
    const l = this.host.layout();
    const g = this.host.graph();
    if (!l || !g) {
      return;
    }
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    g.nodes.forEach((_, i) => {
      if (this.host.hidden(i) || l.x[i] === undefined) {
        return;
      }
      x0 = Math.min(x0, l.x[i]);
      y0 = Math.min(y0, l.y[i]);
      x1 = Math.max(x1, l.x[i] + l.nodeWidth);
      y1 = Math.max(y1, l.y[i] + l.nodeHeight);
    });
    if (!Number.isFinite(x0)) {
      return;
    }
    const size = this.viewport();
    const v = this.host.view();
    Object.assign(v, fitView({ x0, y0, x1, y1 }, size), { manual: false });
    const selected = this.selectedBox();
    if (selected) {
      Object.assign(v, panToShow(selected, v, size));
    }
    this.host.onViewChange();
    if (draw) {
      this.schedule();
    }
  }

  zoomBy(factor: number, cx?: number, cy?: number): void {
    const v = this.host.view();
    const { w, h } = this.viewport();
    const px = cx ?? w / 2;
    const py = cy ?? h / 2;
    const z = Math.max(0.02, Math.min(8, v.zoom * factor));
    v.panX = px - ((px - v.panX) * z) / v.zoom;
    v.panY = py - ((py - v.panY) * z) / v.zoom;
    v.zoom = z;
    v.manual = true;
    this.applyTransform();
    this.host.onViewChange();
    this.schedule();
  }

  /** Moves the picture to a pan (wheel, drag); `save` keeps it with setState (a drag saves at its end). */
  panTo(panX: number, panY: number, save: boolean): void {
    const v = this.host.view();
    v.panX = panX;
    v.panY = panY;
    v.manual = true;
    this.applyTransform();
    if (save) {
      this.host.onViewChange();
    }
    this.schedule();
  }

  /** Pans so node i is visible (centred when it was out of view). */
  reveal(i: number): void {
    const l = this.host.layout();
    if (!l || l.x[i] === undefined) {
      return;
    }
    const v = this.host.view();
    const { w, h } = this.viewport();
    if (v.zoom < READABLE_ZOOM) {
      v.zoom = READABLE_ZOOM;
    }
    const sx = l.x[i] * v.zoom + v.panX;
    const sy = l.y[i] * v.zoom + v.panY;
    if (sx < 0 || sy < 0 || sx + l.nodeWidth * v.zoom > w || sy + l.nodeHeight * v.zoom > h) {
      v.panX = w / 2 - (l.x[i] + l.nodeWidth / 2) * v.zoom;
      v.panY = h / 2 - (l.y[i] + l.nodeHeight / 2) * v.zoom;
      this.host.onViewChange();
    }
    this.schedule();
  }

  focusNode(i: number): void {
    this.reveal(i);
    this.render();
    const node = this.scene.querySelector<SVGGElement>(`g.node[data-index="${i}"]`);
    node?.focus({ preventScroll: true });
  }

  render(): void {
    const g = this.host.graph();
    const l = this.host.layout();
    const d = this.host.derived();
    const active = document.activeElement;
    const focusedNode = active instanceof SVGGElement && this.scene.contains(active) ? active.closest<SVGGElement>('g.node') : null;
    const refocus = focusedNode ? Number(focusedNode.dataset.index) : undefined;
    const refocusMark = focusedNode !== null && active !== focusedNode;
    if (!g || !l || !d || l.x.length !== g.nodes.length) {
      this.clear();
      return;
    }
    const v = this.host.view();
    this.applyTransform();
    const { w, h } = this.viewport();
    const margin = 200;
    const vx0 = (-v.panX - margin) / v.zoom;
    const vy0 = (-v.panY - margin) / v.zoom;
    const vx1 = (w - v.panX + margin) / v.zoom;
    const vy1 = (h - v.panY + margin) / v.zoom;
    const NW = l.nodeWidth;
    const NH = l.nodeHeight;
    const inView = (i: number): boolean => l.x[i] + NW >= vx0 && l.x[i] <= vx1 && l.y[i] + NH >= vy0 && l.y[i] <= vy1;
    const visible: number[] = [];
    for (let i = 0; i < g.nodes.length; i++) {
      if (!this.host.hidden(i) && inView(i)) {
        visible.push(i);
      }
    }
    const useCanvas = visible.length > SVG_LIMIT;
    this.mode = useCanvas ? 'canvas' : 'svg';
    this.root.dataset.render = this.mode;
    this.root.dataset.visibleNodes = String(useCanvas ? 0 : visible.length);
    if (useCanvas) {
      this.clear();
      drawOverview(this.canvas, getComputedStyle(this.root), g, l, v, w, h, { hidden: (i) => this.host.hidden(i), selected: this.host.selected() });
      return;
    }
    this.canvas.style.display = 'none';
    const running = this.host.running();
    const outcomes = this.host.outcomes();
    const waits = this.host.waits();
    const selected = this.host.selected();
    const matches = this.host.matches();
    const selectedEdge = this.host.selectedEdge();
    const geometry = this.edgeGeometry(g, l);
    const now = Date.now();

    // Edges (under the nodes): an element is reused while its geometry and kind stay the same.
    const keepEdges = new Set<number>();
    g.edges.forEach(([from, to, flags], k) => {
      const box = geometry[k];
      if (this.host.hidden(from) || this.host.hidden(to) || box.maxX < vx0 || box.minX > vx1 || box.maxY < vy0 || box.minY > vy1) {
        return;
      }
      const kind = flags & 1 ? 'cycle' : flags & 2 ? 'critical' : 'edge';
      const sig = `${g.nodes[from].id}>${g.nodes[to].id}|${kind}`;
      let entry = this.edgeEls.get(k);
      if (entry?.sig !== sig) {
        entry?.path.remove();
        entry?.hit.remove();
        entry = edgeElement(g, k, kind, box.d, sig);
        this.edgeEls.set(k, entry);
      } else if (entry.d !== box.d) {
        // a new layout moved it: the same element, a new path
        entry.path.setAttribute('d', box.d);
        entry.hit.setAttribute('d', box.d);
        entry.d = box.d;
      }
      if (!entry.path.isConnected) {
        this.edgeLayer.append(entry.path, entry.hit);
      }
      entry.path.classList.toggle('selected', selectedEdge === k);
      keepEdges.add(k);
    });
    for (const [k, entry] of this.edgeEls) {
      if (!keepEdges.has(k)) {
        entry.path.remove();
        entry.hit.remove();
        this.edgeEls.delete(k);
      }
    }

    // Nodes: an element is rebuilt only when what it shows changed; selection, search matches and
    // flags are classes on the kept element.
    const keepNodes = new Set<number>();
    const tabStop = selected !== undefined && visible.includes(selected) ? selected : visible[0];
    for (const i of visible) {
      const n = g.nodes[i];
      const run = running.get(n.id);
      const outcome = run ? '' : (outcomes.get(n.id) ?? '');
      const wait = run ? undefined : waits.get(n.id);
      // the elapsed time is not in it: the mark's clock ticks in place (tickElapsed), not by a rebuild
      const runSig = run ? `${iterationText(run)}@${run.startedAt ?? ''}@${run.resumesAt ?? ''}` : '';
      const sig = [
        n.id, n.title, n.state, n.critical, n.inCycle, n.wave, n.unblocks.total, n.blockedBy.join(','),
        n.artifacts ? JSON.stringify(n.artifacts) : '', n.badges.map((b) => `${b.label}:${b.tooltip ?? ''}`).join(','),
        NW, NH, runSig, outcome, wait?.text ?? '',
      ].join('\u0000');
      let entry = this.nodeEls.get(i);
      if (entry?.sig !== sig) {
        entry?.el.remove();
        entry = { el: nodeElement(n, i, l.x[i], l.y[i], run, outcome, NW, NH, now, wait), sig, x: l.x[i], y: l.y[i] };
        this.nodeEls.set(i, entry);
      } else if (entry.x !== l.x[i] || entry.y !== l.y[i]) {
        // a new layout moved it: the same element at its new place
        entry.el.setAttribute('transform', `translate(${l.x[i]},${l.y[i]})`);
        entry.x = l.x[i];
        entry.y = l.y[i];
      }
      const node = entry.el;
      if (!node.isConnected) {
        this.nodeLayer.append(node);
      }
      node.classList.toggle('selected', i === selected);
      node.classList.toggle('match', matches?.has(i) === true);
      node.classList.toggle('flagged', this.host.flagged(i));
      setIfChanged(node, 'aria-pressed', i === selected ? 'true' : 'false');
      setIfChanged(node, 'tabindex', i === tabStop ? '0' : '-1');
      keepNodes.add(i);
    }
    for (const [i, entry] of this.nodeEls) {
      if (!keepNodes.has(i)) {
        entry.el.remove();
        this.nodeEls.delete(i);
      }
    }
    this.decorate();
    if (refocus !== undefined && !(document.activeElement instanceof SVGGElement && this.scene.contains(document.activeElement))) {
      // the focused node (or its run mark) was rebuilt: focus its successor, or keyboard users lose their place
      const node = this.nodeEls.get(refocus)?.el;
      (refocusMark ? (node?.querySelector<SVGGElement>('.run-mark') ?? node) : node)?.focus({ preventScroll: true });
    }
  }

  /** The drawing's size in CSS pixels (measured once until the observer reports). */
  private viewport(): { w: number; h: number } {
    if (!this.size || this.size.w === 0) {
      this.size = { w: this.root.clientWidth, h: this.root.clientHeight };
    }
    return { w: this.size.w || 800, h: this.size.h || 600 };
  }

  /** Puts the zoom and pan on the scene (cheap: pan and zoom move the kept elements). */
  private applyTransform(): void {
    const v = this.host.view();
    const t = `translate(${v.panX},${v.panY}) scale(${v.zoom})`;
    if (this.scene.getAttribute('transform') !== t) {
      this.scene.setAttribute('transform', t);
    }
  }

  /** Removes every drawn element (no graph, or the canvas overview). */
  private clear(): void {
    this.edgeLayer.replaceChildren();
    this.nodeLayer.replaceChildren();
    this.edgeEls.clear();
    this.nodeEls.clear();
    this.hover = undefined;
    this.wasLit = false;
    this.root.classList.remove('hovering');
  }

  /** Each edge's path and bounding box, computed once per layout. */
  private edgeGeometry(g: GraphMessage, l: LayoutDto): EdgeGeometry[] {
    if (this.geometry && this.geometry.layout === l && this.geometry.edges.length === g.edges.length && this.geometry.edges.every(([f, t], k) => g.edges[k][0] === f && g.edges[k][1] === t)) {
      return this.geometry.boxes;
    }
    const boxes = edgeGeometryOf(g, l);
    this.geometry = { layout: l, edges: g.edges.map(([f, t]) => [f, t] as const), boxes };
    return boxes;
  }

  /**
   * Hover: the story's ancestors and descendants stay bright, the rest dims. Only the `lit` class
   * of the lineage and one class on the root change (the CSS dims the rest), so a hover costs what
   * its lineage costs, not what the drawing costs. Rebuilding the DOM under the pointer would fire
   * pointerover again, for ever.
   */
  private decorate(): void {
    const d = this.host.derived();
    const lit = this.hover !== undefined && d ? lineage(d, this.hover) : undefined;
    if (!lit && !this.wasLit) {
      return;
    }
    this.wasLit = lit !== undefined;
    this.root.classList.toggle('hovering', lit !== undefined);
    for (const [i, { el }] of this.nodeEls) {
      el.classList.toggle('lit', lit?.has(i) === true);
    }
    for (const { path } of this.edgeEls.values()) {
      path.classList.toggle('lit', lit !== undefined && lit.has(Number(path.dataset.fromIndex)) && lit.has(Number(path.dataset.toIndex)));
    }
  }

  /**
   * The pointer rests on a node (or left it): the highlight follows after HOVER_MS, so a pointer
   * on its way to a click or across the drawing does not repaint the whole picture at every node.
   */
  hoverLater(i: number | undefined): void {
    window.clearTimeout(this.hoverTimer);
    this.hoverTimer = window.setTimeout(() => {
      if (i !== this.hover) {
        this.hover = i;
        this.decorate();
      }
    }, HOVER_MS);
  }
}
