/**
 * The status line's notices, each tied to what it states: a line is shown while its condition holds
 * and goes as soon as it does not, never only after a time. An edge selected holds while that edge
 * is; a refused dependency's cycle while the chain it names is still in the graph; an error, and
 * what Copy put on the clipboard, while the picture it answered is the one shown; an edit's result
 * ("Saved the title of US-008") while its story stays selected (the change it made follows it).
 * Every notice goes when the user selects another story.
 */
import type { HostMessage } from '../../../src/core/webview/graphProtocol';
import type { GraphMessage } from './model';
import type { Notice, PageState } from './state';

type NoticeMessage = Extract<HostMessage, { type: 'notice' }>;

const keys = new WeakMap<GraphMessage, string>();

/** What a notice can be about in a picture: the stories, their states, the edges, and whether it is stale. */
function pictureKey(g: GraphMessage | undefined): string {
  if (!g) {
    return '';
  }
  let key = keys.get(g);
  if (key === undefined) {
    key = JSON.stringify([g.stale === true, g.nodes.map((n) => [n.id, n.state]), g.edges]);
    keys.set(g, key);
  }
  return key;
}

/** A condition that also ends when another story is selected or the picture changes (unless `anyPicture`). */
function sameView(s: PageState, anyPicture: boolean): (p: PageState) => boolean {
  const selected = s.view.selected;
  const picture = pictureKey(s.graph);
  return (p) => p.view.selected === selected && (anyPicture || pictureKey(p.graph) === picture);
}

/** True while every edge of the chain story → … → blocker (a refused edge's cycle without its closing edge) is drawn. */
function chainDrawn(p: PageState, cycle: readonly string[]): boolean {
  const d = p.derived;
  if (!d) {
    return false;
  }
  for (let k = 0; k + 2 < cycle.length; k++) {
    const from = d.byId.get(cycle[k]);
    const to = d.byId.get(cycle[k + 1]);
    if (from === undefined || to === undefined || !d.dependents[from].includes(to)) {
      return false;
    }
  }
  return true;
}

/** The host's answer to a request of `kind` (the request's type), tied to what it states. */
export function hostNotice(m: NoticeMessage, kind: string | undefined, s: PageState): Notice {
  let holds: (p: PageState) => boolean;
  if (m.cycle && m.cycle.length > 1) {
    const cycle = m.cycle;
    const view = sameView(s, true);
    holds = (p) => view(p) && chainDrawn(p, cycle);
  } else {
    holds = sameView(s, m.level === 'info' && kind !== 'copy');
  }
  return { level: m.level, message: m.message, cycle: m.cycle, holds };
}

/** "Edge A → B selected": while that edge is selected in this picture. */
export function edgeNotice(k: number, s: PageState): Notice {
  const view = sameView(s, false);
  return { level: 'info', message: `Edge ${s.edgeWords(k)} selected: press Delete to remove it.`, holds: (p) => p.selectedEdge === k && view(p) };
}
