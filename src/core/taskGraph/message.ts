/**
 * Builds the `graph` message the host posts to the task-graph page, and keeps the layout between
 * messages: the layout depends on the topology (ids and edges) and the direction only, so a change
 * of status (a story passes, runs, is renamed) reuses it and the message carries no layout at all.
 * When prd.json cannot be read, the last good picture is sent again, marked stale, with the problems.
 */
import type { GraphMessage, GraphNodeDto, LayoutDto } from '../webview/graphProtocol';
import type { PrdAnalysis } from '../prd/index';
import { layeredLayout } from './layout';
import { taskGraphOf, type TaskGraph } from './model';
import { pageNode, pageProblems, pageSource } from './pageMessages';

export type Direction = 'LR' | 'TB';

/** Node size on the page, in CSS pixels, for a left-to-right drawing. */
export const NODE_WIDTH = 220;
export const NODE_HEIGHT = 60;

export class GraphMessageBuilder {
  private layoutKey = '';
  private layout?: LayoutDto;
  private layoutId = 0;
  private lastGood?: GraphMessage;
  /** How many times a layout was computed (tests and the log read it). */
  layoutRuns = 0;

  /** The message for an analysis (undefined analysis = no prd.json), within the page's limits (pageMessages.ts). */
  build(analysis: PrdAnalysis, fullSource: string, direction: Direction, decorate?: (node: GraphNodeDto) => GraphNodeDto): GraphMessage {
    const source = pageSource(fullSource);
    if (!analysis.readable) {
      const problems = pageProblems(analysis.problems);
      if (this.lastGood) {
        return { ...this.lastGood, source, stale: true, problems, layout: undefined };
      }
      return { type: 'graph', source, stale: true, problems, nodes: [], edges: [], waves: [], unschedulable: [], criticalPath: [], layoutId: this.layoutId, layout: undefined };
    }
    const graph = taskGraphOf(analysis);
    const layoutChanged = this.ensureLayout(graph, direction);
    const stories = analysis.doc.stories;
    const nodes = graph.nodes.map((n): GraphNodeDto => {
      const s = stories[n.index];
      const dto: GraphNodeDto = {
        id: n.id,
        title: n.title,
        state: n.state,
        wave: n.wave ?? null,
        priority: n.priority,
        critical: n.critical,
        inCycle: n.inCycle,
        unblocks: n.unblocks,
        blockedBy: s.blockedBy.map((r) => r.id),
        unknownDependencies: [...n.unknownDependencies],
        badges: [...n.badges],
      };
      return pageNode(decorate ? decorate(dto) : dto);
    });
    const problems = pageProblems(analysis.problems);
    const message: GraphMessage = {
      type: 'graph',
      source,
      stale: false,
      problems,
      nodes,
      edges: graph.edges.map((e) => [e.from, e.to, (e.inCycle ? 1 : 0) | (e.critical ? 2 : 0)] as [number, number, number]),
      waves: graph.waves.map((w) => [...w]),
      unschedulable: [...graph.unschedulable],
      criticalPath: [...graph.criticalPath],
      layoutId: this.layoutId,
      layout: layoutChanged ? this.layout : undefined,
    };
    this.lastGood = { ...message, layout: this.layout };
    return message;
  }

  /** The latest layout (for a page that was (re)loaded and has none). */
  currentLayout(): LayoutDto | undefined {
    return this.layout;
  }

  private ensureLayout(graph: TaskGraph, direction: Direction): boolean {
    const key = topologyKey(graph, direction);
    if (key === this.layoutKey && this.layout) {
      return false;
    }
    const lr = direction === 'LR';
    const l = layeredLayout(
      { n: graph.nodes.length, edges: graph.edges, rank: graph.nodes.map((n) => n.index) },
      { nodeWidth: lr ? NODE_WIDTH : NODE_HEIGHT, nodeHeight: lr ? NODE_HEIGHT : NODE_WIDTH, layerGap: lr ? 90 : 70, nodeGap: lr ? 18 : 24 },
    );
    this.layoutRuns++;
    this.layoutKey = key;
    this.layoutId++;
    const round = (v: number): number => Math.round(v * 10) / 10;
    const xs = Array.from(l.x, round);
    const ys = Array.from(l.y, round);
    this.layout = {
      id: this.layoutId,
      direction,
      nodeWidth: NODE_WIDTH,
      nodeHeight: NODE_HEIGHT,
      width: round(lr ? l.width : l.height),
      height: round(lr ? l.height : l.width),
      // top-to-bottom: the flow axis becomes y
      x: lr ? xs : ys,
      y: lr ? ys : xs,
      bends: l.bends.map((b) => {
        const out = b.map(round);
        if (!lr) {
          for (let k = 0; k + 1 < out.length; k += 2) {
            [out[k], out[k + 1]] = [out[k + 1], out[k]];
          }
        }
        return out;
      }),
    };
    return true;
  }
}

/** Ids in order plus edges: what the layout depends on. */
export function topologyKey(graph: Pick<TaskGraph, 'nodes' | 'edges'>, direction: Direction): string {
  let key = `${direction}|${graph.nodes.length}|`;
  for (const n of graph.nodes) {
    key += `${n.id}\u0000`;
  }
  for (const e of graph.edges) {
    key += `${e.from},${e.to};`;
  }
  return key;
}
