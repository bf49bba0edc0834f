/**
 * The page's input: the keyboard (← to a blocker, → to a dependent, ↑/↓ within a wave, Enter opens,
 * Space selects, Delete removes the selected edge), and on the drawing the pointer (one delegated
 * listener each for clicks, double-clicks and hover), the wheel (pan; with Ctrl or ⌘, zoom) and
 * dragging (pan). What an input means is the caller's; this module only finds its story or edge.
 */
import type { Drawing } from './drawing';
import type { LayoutDto } from './model';
import type { PageState } from './state';
import { post } from './vscode';

export interface KeyboardActions {
  /** Selects story i as a click would. */
  select(i: number): void;
  open(i: number): void;
  /** Puts the keyboard focus on story i (its node or its row). */
  focus(i: number): void;
}

/** Arrow keys walk the graph along its edges and waves; keys typed into a field are left alone. */
export function bindKeyboard(root: HTMLElement, state: PageState, actions: KeyboardActions): void {
  root.addEventListener('keydown', (e) => {
    const target = e.target as HTMLElement | SVGElement;
    if (target.closest('.detail, vscode-textfield, vscode-textarea, input, textarea, button')) {
      return; // a button acts on its own click (Enter and Space click it): the story keys are not for it
    }
    const mark = target.closest('.run-mark');
    if (mark) {
      // a running story's mark in the drawing (SVG, not a button element): Enter or Space shows its agent's terminal
      if (e.key === 'Enter' || e.key === ' ') {
        post({ type: 'showTerminal', id: mark.getAttribute('data-story') ?? undefined });
        e.preventDefault();
      }
      return;
    }
    const g = state.graph;
    const d = state.derived;
    if (!g || !d) {
      return;
    }
    if ((e.key === 'Delete' || e.key === 'Backspace') && state.selectedEdge !== undefined) {
      const [from, to] = g.edges[state.selectedEdge];
      post({ type: 'removeDependency', story: g.nodes[to].id, blocker: g.nodes[from].id });
      state.selectedEdge = undefined;
      e.preventDefault();
      return;
    }
    const host = target.closest<HTMLElement | SVGElement>('[data-index]');
    const current = host ? Number(host.getAttribute('data-index')) : state.selectedIndex();
    if (current === undefined || Number.isNaN(current)) {
      return;
    }
    let next: number | undefined;
    const layout = state.layout;
    const byY = (xs: number[]): number[] => (layout ? [...xs].sort((a, b) => (layout as LayoutDto).y[a] - (layout as LayoutDto).y[b]) : xs);
    const visibleOnly = (xs: number[]): number[] => xs.filter((i) => !state.hidden(i));
    switch (e.key) {
      case 'ArrowLeft':
        next = byY(visibleOnly(d.blockers[current]))[0];
        break;
      case 'ArrowRight':
        next = byY(visibleOnly(d.dependents[current]))[0];
        break;
      case 'ArrowUp':
      case 'ArrowDown': {
        const peers = state.peersOf(current);
        const k = peers.indexOf(current);
        next = peers[k + (e.key === 'ArrowUp' ? -1 : 1)];
        break;
      }
      case 'Enter':
        actions.open(current);
        e.preventDefault();
        return;
      case ' ':
        actions.select(current);
        actions.focus(current);
        e.preventDefault();
        return;
      default:
        return;
    }
    e.preventDefault();
    if (next !== undefined) {
      actions.select(next);
      actions.focus(next);
    }
  });
}

export interface PointerActions {
  nodeClick(i: number): void;
  nodeOpen(i: number): void;
  edgeClick(k: number): void;
  /** A running story's mark was clicked (the story it marks). */
  runClick(storyId: string | undefined): void;
}

/** One listener each for the whole drawing: clicks, double-clicks and hover find their node or edge. */
export function bindPointer(drawing: Drawing, actions: PointerActions): void {
  const nodeOf = (e: Event): number | undefined => {
    const g = (e.target as Element).closest<SVGGElement>('g.node');
    return g && drawing.nodeLayer.contains(g) ? Number(g.dataset.index) : undefined;
  };
  drawing.scene.addEventListener('click', (e) => {
    const mark = (e.target as Element).closest('.run-mark');
    if (mark) {
      e.stopPropagation();
      actions.runClick(mark.getAttribute('data-story') ?? undefined);
      return;
    }
    const hit = (e.target as Element).closest<SVGPathElement>('.edge-hit');
    if (hit) {
      e.stopPropagation();
      actions.edgeClick(Number(hit.dataset.edge));
      return;
    }
    const i = nodeOf(e);
    if (i !== undefined) {
      actions.nodeClick(i);
    }
  });
  drawing.scene.addEventListener('dblclick', (e) => {
    const i = nodeOf(e);
    if (i !== undefined) {
      actions.nodeOpen(i);
    }
  });
  drawing.nodeLayer.addEventListener('pointerover', (e) => {
    const i = nodeOf(e);
    if (i !== undefined) {
      drawing.hoverLater(i);
    }
  });
  drawing.nodeLayer.addEventListener('pointerout', (e) => {
    const to = (e as PointerEvent).relatedTarget as Element | null;
    const from = nodeOf(e);
    if (from !== undefined && !to?.closest(`g.node[data-index="${from}"]`)) {
      drawing.hoverLater(undefined);
    }
  });
}

/** The wheel pans (with Ctrl or ⌘ it zooms at the pointer); dragging the background pans. */
export function bindPanZoom(drawing: Drawing, state: PageState): void {
  const root = drawing.root;
  let drag: { x: number; y: number; panX: number; panY: number; moved: boolean } | undefined;
  root.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      const r = root.getBoundingClientRect();
      if (e.ctrlKey || e.metaKey) {
        drawing.zoomBy(Math.exp(-e.deltaY / 300), e.clientX - r.left, e.clientY - r.top);
      } else {
        drawing.panTo(state.view.panX - e.deltaX, state.view.panY - e.deltaY, true);
      }
    },
    { passive: false },
  );
  root.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 || (e.target as Element).closest('g.node, .edge-hit')) {
      return;
    }
    drag = { x: e.clientX, y: e.clientY, panX: state.view.panX, panY: state.view.panY, moved: false };
    root.setPointerCapture(e.pointerId);
  });
  root.addEventListener('pointermove', (e) => {
    if (!drag) {
      return;
    }
    drag.moved = true;
    drawing.panTo(drag.panX + e.clientX - drag.x, drag.panY + e.clientY - drag.y, false);
  });
  root.addEventListener('pointerup', () => {
    if (drag?.moved) {
      drawing.panTo(state.view.panX, state.view.panY, true);
    }
    drag = undefined;
  });
}
