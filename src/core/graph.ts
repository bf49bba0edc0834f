/**
 * Directed graphs over node indices 0..n-1: strongly connected components (iterative Tarjan, so
 * 50,000-story chains do not overflow the stack) and shortest cycles through a node.
 */

export type Adjacency = readonly (readonly number[])[];

/** Strongly connected components, each as node indices in ascending order. */
export function stronglyConnectedComponents(adj: Adjacency): number[][] {
  const n = adj.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const components: number[][] = [];
  const callNode: number[] = [];
  const callEdge: number[] = [];
  let counter = 0;

  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) {
      continue;
    }
    callNode.push(root);
    callEdge.push(0);
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (callNode.length > 0) {
      const top = callNode.length - 1;
      const v = callNode[top];
      const edges = adj[v];
      if (callEdge[top] < edges.length) {
        const w = edges[callEdge[top]++];
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          callNode.push(w);
          callEdge.push(0);
        } else if (onStack[w] && index[w] < low[v]) {
          low[v] = index[w];
        }
        continue;
      }
      callNode.pop();
      callEdge.pop();
      if (callNode.length > 0) {
        const parent = callNode[callNode.length - 1];
        if (low[v] < low[parent]) {
          low[parent] = low[v];
        }
      }
      if (low[v] === index[v]) {
        const comp: number[] = [];
        let w: number;
        do {
          w = stack.pop() as number;
          onStack[w] = 0;
          comp.push(w);
        } while (w !== v);
        comp.sort((a, b) => a - b);
        components.push(comp);
      }
    }
  }
  return components;
}

/** Components that contain a cycle of length ≥ 2 (self-loops are reported separately). */
export function cyclicComponents(adj: Adjacency): number[][] {
  return stronglyConnectedComponents(adj)
    .filter((c) => c.length > 1)
    .sort((a, b) => a[0] - b[0]);
}

/**
 * A shortest cycle from `start` back to itself using only nodes in `allowed` (breadth-first),
 * as a path whose last element repeats the first. Undefined when there is none.
 */
export function shortestCycleThrough(adj: Adjacency, start: number, allowed: ReadonlySet<number>): number[] | undefined {
  const prev = new Map<number, number>();
  const queue: number[] = [start];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head];
    for (const w of adj[v]) {
      if (!allowed.has(w) || w === v) {
        continue;
      }
      if (w === start) {
        const path = [start];
        for (let x = v; x !== start; x = prev.get(x) as number) {
          path.push(x);
        }
        // path holds start, v, prev(v), …, the node after start: reverse the middle to walk forwards
        return [start, ...path.slice(1).reverse(), start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return undefined;
}

/**
 * Cycles that together cover every node of a cyclic component: the shortest cycle through the
 * first uncovered node, repeated until all are covered. Each is a path with the first node repeated last.
 */
export function coveringCycles(adj: Adjacency, component: readonly number[]): number[][] {
  const allowed = new Set(component);
  const covered = new Set<number>();
  const cycles: number[][] = [];
  for (const v of component) {
    if (covered.has(v)) {
      continue;
    }
    const cycle = shortestCycleThrough(adj, v, allowed);
    if (!cycle) {
      continue; // cannot happen in a strongly connected component of size > 1
    }
    for (const x of cycle) {
      covered.add(x);
    }
    cycles.push(cycle);
  }
  return cycles;
}
