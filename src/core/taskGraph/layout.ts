/**
 * A layered (Sugiyama-style) layout tuned for story graphs, chosen over elkjs and d3-dag by
 * measurement (scripts/bench-graph.mjs): longest-path layering on the graph with cycles broken,
 * long edges routed through virtual nodes, barycenter crossing reduction (alternating sweeps,
 * stopped when crossings no longer drop), then coordinates by priority-ordered placement toward
 * the median of the neighbours. Linear-ish: O((V + E') · sweeps), with E' the edge segments.
 *
 * It depends on the topology only (never on story state), so a status change reuses the layout.
 */

export interface LayoutInput {
  /** Number of nodes (indices 0..n-1). */
  readonly n: number;
  /** Edges from → to (blocker → blocked); self-loops and duplicates are ignored. */
  readonly edges: readonly { readonly from: number; readonly to: number }[];
  /** Order used to break ties and cycles (lower first); defaults to the index. */
  readonly rank?: ArrayLike<number>;
}

export interface LayoutOptions {
  readonly nodeWidth: number;
  readonly nodeHeight: number;
  /** Gap between layers (along the flow) and between nodes in a layer. */
  readonly layerGap: number;
  readonly nodeGap: number;
  /** Barycenter sweeps at most (each sweep goes down and up once). */
  readonly sweeps: number;
}

export const DEFAULT_LAYOUT_OPTIONS: LayoutOptions = { nodeWidth: 200, nodeHeight: 56, layerGap: 80, nodeGap: 16, sweeps: 8 };

export interface Layout {
  /** Layer (column, in left-to-right flow) of each node. */
  readonly layer: Int32Array;
  /** Position of each node inside its layer (0 = top). */
  readonly order: Int32Array;
  /** Top-left corner of each node, in left-to-right flow. */
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly width: number;
  readonly height: number;
  readonly layers: number;
  /** For each input edge (same order), the bend points between the two ends, flattened [x0, y0, x1, y1, …] (centre line). */
  readonly bends: readonly (readonly number[])[];
  /** Edges that point backwards (they close a cycle), by input index. */
  readonly reversed: ReadonlySet<number>;
  /** Crossings between segments of adjacent layers after ordering. */
  readonly crossings: number;
}

export function layeredLayout(input: LayoutInput, options: Partial<LayoutOptions> = {}): Layout {
  const o = { ...DEFAULT_LAYOUT_OPTIONS, ...options };
  const n = input.n;
  const rank = input.rank ?? Int32Array.from({ length: n }, (_, i) => i);

  // 1. Acyclic orientation: depth-first, an edge to a node on the current DFS stack is reversed.
  const out: number[][] = Array.from({ length: n }, () => []);
  const seenEdge = new Map<number, number>();
  const duplicates: [number, number][] = [];
  const edgeList: { from: number; to: number; index: number }[] = [];
  input.edges.forEach((e, index) => {
    if (e.from === e.to || e.from < 0 || e.to < 0 || e.from >= n || e.to >= n) {
      return;
    }
    const key = e.from * n + e.to;
    const first = seenEdge.get(key);
    if (first !== undefined) {
      duplicates.push([index, first]);
      return;
    }
    seenEdge.set(key, index);
    edgeList.push({ from: e.from, to: e.to, index });
    out[e.from].push(edgeList.length - 1);
  });
  const reversed = new Uint8Array(edgeList.length);
  {
    const state = new Uint8Array(n); // 0 new, 1 on stack, 2 finished
    const roots = Array.from({ length: n }, (_, i) => i).sort((a, b) => rank[a] - rank[b] || a - b);
    const stackNode: number[] = [];
    const stackEdge: number[] = [];
    for (const r of roots) {
      if (state[r] !== 0) {
        continue;
      }
      state[r] = 1;
      stackNode.push(r);
      stackEdge.push(0);
      while (stackNode.length > 0) {
        const top = stackNode.length - 1;
        const v = stackNode[top];
        if (stackEdge[top] < out[v].length) {
          const ei = out[v][stackEdge[top]++];
          const w = edgeList[ei].to;
          if (state[w] === 1) {
            reversed[ei] = 1;
          } else if (state[w] === 0) {
            state[w] = 1;
            stackNode.push(w);
            stackEdge.push(0);
          }
        } else {
          state[v] = 2;
          stackNode.pop();
          stackEdge.pop();
        }
      }
    }
  }
  const succ: number[][] = Array.from({ length: n }, () => []);
  const pred: number[][] = Array.from({ length: n }, () => []);
  edgeList.forEach((e, k) => {
    const [a, b] = reversed[k] ? [e.to, e.from] : [e.from, e.to];
    succ[a].push(b);
    pred[b].push(a);
  });

  // 2. Longest-path layering from the sources (Kahn order).
  const layer = new Int32Array(n);
  const indeg = new Int32Array(n);
  for (let v = 0; v < n; v++) {
    indeg[v] = pred[v].length;
  }
  const topo: number[] = [];
  for (let v = 0; v < n; v++) {
    if (indeg[v] === 0) {
      topo.push(v);
    }
  }
  for (let h = 0; h < topo.length; h++) {
    const v = topo[h];
    for (const w of succ[v]) {
      if (layer[v] + 1 > layer[w]) {
        layer[w] = layer[v] + 1;
      }
      if (--indeg[w] === 0) {
        topo.push(w);
      }
    }
  }
  let layers = 0;
  for (let v = 0; v < n; v++) {
    layers = Math.max(layers, layer[v] + 1);
  }

  // 3. Virtual nodes for edges longer than one layer: segments only join adjacent layers.
  // Node ids ≥ n are virtual. up[v]/down[v] list neighbours in the previous/next layer.
  const vLayer: number[] = Array.from(layer);
  const up: number[][] = Array.from({ length: n }, () => []);
  const down: number[][] = Array.from({ length: n }, () => []);
  const chains: number[][] = new Array<number[]>(edgeList.length);
  edgeList.forEach((e, k) => {
    const [a, b] = reversed[k] ? [e.to, e.from] : [e.from, e.to];
    const chain: number[] = [];
    let prev = a;
    for (let l = layer[a] + 1; l < layer[b]; l++) {
      const id = vLayer.length;
      vLayer.push(l);
      up.push([prev]);
      down.push([]);
      down[prev].push(id);
      chain.push(id);
      prev = id;
    }
    down[prev].push(b);
    up[b].push(prev);
    chains[k] = chain;
  });
  const total = vLayer.length;
  const byLayer: number[][] = Array.from({ length: Math.max(layers, 1) }, () => []);
  // Initial order: real nodes by rank, virtual ones after their source (DFS-ish from the layering order).
  const initial = Array.from({ length: total }, (_, i) => i).sort((a, b) => {
    const ra = a < n ? rank[a] : Number.MAX_SAFE_INTEGER;
    const rb = b < n ? rank[b] : Number.MAX_SAFE_INTEGER;
    return ra - rb || a - b;
  });
  for (const v of initial) {
    byLayer[vLayer[v]].push(v);
  }
  const pos = new Float64Array(total);
  const setPositions = (): void => {
    for (const l of byLayer) {
      l.forEach((v, i) => {
        pos[v] = i;
      });
    }
  };
  setPositions();

  // 4. Barycenter sweeps; keep the best ordering seen.
  const bary = new Float64Array(total);
  const sortLayer = (l: number[], neighbours: number[][]): void => {
    for (const v of l) {
      const ns = neighbours[v];
      if (ns.length === 0) {
        bary[v] = pos[v];
      } else {
        let s = 0;
        for (const w of ns) {
          s += pos[w];
        }
        bary[v] = s / ns.length;
      }
    }
    l.sort((a, b) => bary[a] - bary[b] || pos[a] - pos[b]);
    l.forEach((v, i) => {
      pos[v] = i;
    });
  };
  let best = countCrossings(byLayer, down, pos);
  let bestOrder = byLayer.map((l) => l.slice());
  for (let s = 0; s < o.sweeps && best > 0; s++) {
    for (let l = 1; l < byLayer.length; l++) {
      sortLayer(byLayer[l], up);
    }
    for (let l = byLayer.length - 2; l >= 0; l--) {
      sortLayer(byLayer[l], down);
    }
    const c = countCrossings(byLayer, down, pos);
    if (c < best) {
      best = c;
      bestOrder = byLayer.map((l) => l.slice());
    } else {
      break;
    }
  }
  for (let l = 0; l < byLayer.length; l++) {
    byLayer[l] = bestOrder[l];
  }
  setPositions();

  // 5. Coordinates: each layer packed top-down, then nodes pulled toward the median of their
  //    neighbours without changing the order (one pass down, one up). Virtual nodes are thin.
  const slot = o.nodeHeight + o.nodeGap;
  const virtualSlot = Math.max(8, Math.round(o.nodeGap));
  const size = (v: number): number => (v < n ? slot : virtualSlot);
  const yc = new Float64Array(total);
  for (const l of byLayer) {
    let y = 0;
    for (const v of l) {
      yc[v] = y + size(v) / 2;
      y += size(v);
    }
  }
  const place = (l: number[], neighbours: number[][]): void => {
    // desired centre per node, then a left-to-right pass that keeps the order and the spacing
    const want = l.map((v) => {
      const ns = neighbours[v];
      if (ns.length === 0) {
        return yc[v];
      }
      const ys = ns.map((w) => yc[w]).sort((a, b) => a - b);
      const m = ys.length >> 1;
      return ys.length % 2 === 1 ? ys[m] : (ys[m - 1] + ys[m]) / 2;
    });
    // Two valid placements (same order, same spacing): one that only pushes down, one that only
    // pushes up. Their average is valid too (the spacing constraints are linear) and balanced.
    const downY = new Float64Array(l.length);
    let floor = -Infinity;
    for (let i = 0; i < l.length; i++) {
      const half = size(l[i]) / 2;
      downY[i] = Math.max(want[i], floor + half);
      floor = downY[i] + half;
    }
    let ceiling = Infinity;
    for (let i = l.length - 1; i >= 0; i--) {
      const half = size(l[i]) / 2;
      const upY = Math.min(want[i], ceiling - half);
      ceiling = upY - half;
      yc[l[i]] = (downY[i] + upY) / 2;
    }
  };
  for (let pass = 0; pass < 2; pass++) {
    for (let l = 1; l < byLayer.length; l++) {
      place(byLayer[l], up);
    }
    for (let l = byLayer.length - 2; l >= 0; l--) {
      place(byLayer[l], down);
    }
  }
  let minY = Infinity;
  let maxY = -Infinity;
  for (let v = 0; v < total; v++) {
    minY = Math.min(minY, yc[v] - size(v) / 2);
    maxY = Math.max(maxY, yc[v] + size(v) / 2);
  }
  if (total === 0) {
    minY = 0;
    maxY = 0;
  }

  const colWidth = o.nodeWidth + o.layerGap;
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  const order = new Int32Array(n);
  for (let v = 0; v < n; v++) {
    x[v] = layer[v] * colWidth;
    y[v] = yc[v] - minY - o.nodeHeight / 2;
  }
  for (const l of byLayer) {
    let k = 0;
    for (const v of l) {
      if (v < n) {
        order[v] = k++;
      }
    }
  }
  const bends: number[][] = input.edges.map(() => []);
  const rev = new Set<number>();
  edgeList.forEach((e, k) => {
    const pts: number[] = [];
    const chain = reversed[k] ? chains[k].slice().reverse() : chains[k];
    for (const v of chain) {
      pts.push(vLayer[v] * colWidth + o.nodeWidth / 2, yc[v] - minY);
    }
    bends[e.index] = pts;
    if (reversed[k]) {
      rev.add(e.index);
    }
  });
  for (const [dup, first] of duplicates) {
    bends[dup] = bends[first];
    if (rev.has(first)) {
      rev.add(dup);
    }
  }
  return {
    layer,
    order,
    x,
    y,
    width: layers > 0 ? layers * colWidth - o.layerGap : 0,
    height: Math.max(0, maxY - minY - o.nodeGap),
    layers,
    bends,
    reversed: rev,
    crossings: best,
  };
}

/** Crossings between adjacent layers (sum over layers of inversions among their segments). */
export function countCrossings(byLayer: readonly (readonly number[])[], down: readonly (readonly number[])[], pos: ArrayLike<number>): number {
  let total = 0;
  for (let l = 0; l + 1 < byLayer.length; l++) {
    // segments as (pos top, pos bottom), sorted by top then bottom; count inversions of bottoms.
    const bottoms: number[] = [];
    for (const v of byLayer[l]) {
      const ws = down[v].map((w) => pos[w]).sort((a, b) => a - b);
      for (const p of ws) {
        bottoms.push(p);
      }
    }
    total += inversions(bottoms, byLayer[l + 1].length);
  }
  return total;
}

/** Inversions in a sequence of integers in [0, size) with a Fenwick tree: O(m log size). */
function inversions(seq: readonly number[], size: number): number {
  const tree = new Int32Array(size + 1);
  let count = 0;
  for (let i = seq.length - 1; i >= 0; i--) {
    // elements after i that are strictly smaller
    for (let k = seq[i]; k > 0; k -= k & -k) {
      count += tree[k];
    }
    for (let k = seq[i] + 1; k <= size; k += k & -k) {
      tree[k]++;
    }
  }
  return count;
}
