/**
 * Where the editor drawing looks, pure: the fit (the whole picture when it fits; never smaller than
 * readable, it starts at the first wave and the rest is a pan away) and the smallest pan that
 * brings a story into view. drawing.ts applies them; the page's view state holds zoom and pan.
 */

/** The smallest label height on screen, in CSS pixels, that fit may give. */
export const READABLE_LABEL_PX = 11;
/** The smallest font size of a node's labels in graph.css (`.node .title`; the id is larger). */
export const LABEL_FONT_PX = 12;
/** The fit's floor: at this zoom a node's smallest label is READABLE_LABEL_PX high. */
export const READABLE_ZOOM = READABLE_LABEL_PX / LABEL_FONT_PX;
/** A small graph is not blown up past this. */
export const MAX_FIT_ZOOM = 1.25;
/** Room left around the picture by the fit, in CSS pixels. */
export const FIT_PADDING = 24;

/** A rectangle in drawing coordinates. */
export interface Box {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

export interface Size {
  readonly w: number;
  readonly h: number;
}

export interface View {
  readonly zoom: number;
  readonly panX: number;
  readonly panY: number;
}

/**
 * The zoom and pan that show `bounds` in a drawing of `size`: as large as fits (up to
 * MAX_FIT_ZOOM), never below `floor`. An axis that fits is centred; one that does not starts at
 * the picture's top or left edge (the first waves), so the user scrolls to the rest.
 */
export function fitView(bounds: Box, size: Size, floor = READABLE_ZOOM): View {
  const bw = Math.max(1, bounds.x1 - bounds.x0);
  const bh = Math.max(1, bounds.y1 - bounds.y0);
  const room = (n: number): number => Math.max(1, n - 2 * FIT_PADDING);
  const zoom = Math.max(floor, Math.min(MAX_FIT_ZOOM, room(size.w) / bw, room(size.h) / bh));
  const axis = (start: number, length: number, extent: number): number =>
    length * zoom <= room(extent) ? (extent - length * zoom) / 2 - start * zoom : FIT_PADDING - start * zoom;
  return { zoom, panX: axis(bounds.x0, bw, size.w), panY: axis(bounds.y0, bh, size.h) };
}

/** True when `box` lies wholly inside the drawing at this view. */
export function isFullyVisible(box: Box, view: View, size: Size): boolean {
  const x0 = box.x0 * view.zoom + view.panX;
  const y0 = box.y0 * view.zoom + view.panY;
  return x0 >= 0 && y0 >= 0 && box.x1 * view.zoom + view.panX <= size.w && box.y1 * view.zoom + view.panY <= size.h;
}

/**
 * The pan closest to the view's that shows `box` whole, `margin` pixels from the edges (the box's
 * top-left edge wins when it is larger than the drawing).
 */
export function panToShow(box: Box, view: View, size: Size, margin = 16): { panX: number; panY: number } {
  const axis = (pan: number, start: number, end: number, extent: number): number => {
    const m = Math.min(margin, Math.max(0, (extent - (end - start) * view.zoom) / 2));
    const lo = start * view.zoom + pan;
    const hi = end * view.zoom + pan;
    if (lo < m) {
      return pan + (m - lo);
    }
    if (hi > extent - m) {
      return Math.max(pan - (hi - (extent - m)), pan + (m - lo));
    }
    return pan;
  };
  return { panX: axis(view.panX, box.x0, box.x1, size.w), panY: axis(view.panY, box.y0, box.y1, size.h) };
}
