/**
 * The task graph's status line: the summary, why the picture is stale, the cycles, the running
 * story, the last notice, and a message the page refused (what was wrong, over the last good
 * picture: never a blank page). Text only, never HTML.
 */
import { ELAPSED_FROM, el, elapsed, type GraphMessage, iterationText, type RunMessage, type RunningStoryDto } from './model';
import { post } from './vscode';

/** A message the page refused: its type and what was wrong. */
export interface Rejected {
  readonly type: string;
  readonly error: string;
}

export interface StatusInput {
  readonly empty?: string;
  readonly graph?: GraphMessage;
  readonly run: RunMessage;
  readonly notice?: { readonly level: 'info' | 'error'; readonly message: string };
  readonly rejected?: Rejected;
}

export function statusParts(s: StatusInput): HTMLElement[] {
  const parts: HTMLElement[] = [];
  if (s.empty) {
    parts.push(el('div', { class: 'empty' }, s.empty));
  } else if (s.graph) {
    const g = s.graph;
    const done = g.nodes.filter((n) => n.state === 'done').length;
    const summary = el('div', { class: 'summary' });
    summary.textContent =
      g.nodes.length === 0
        ? `${g.source}: no stories yet. Add one to start.`
        : `${g.source}: ${g.nodes.length} stories, ${done} done, ${g.waves.length} ${g.waves.length === 1 ? 'wave' : 'waves'} to go` +
          (g.unschedulable.length > 0 ? `, ${g.unschedulable.length} unschedulable` : '') +
          (g.criticalPath.length > 0 ? ` · critical path ${g.criticalPath.length}` : '');
    summary.title = summary.textContent; // one line in the side bar (graph.css): the whole of it on hover
    parts.push(summary);
    if (g.stale) {
      const stale = el('div', { class: 'stale', role: 'alert' });
      stale.append(el('span', { class: 'codicon codicon-warning', 'aria-hidden': 'true' }), document.createTextNode(' prd.json cannot be read: showing the last good picture (stale).'));
      parts.push(stale);
      for (const p of g.problems.slice(0, 5)) {
        parts.push(el('div', { class: 'problem' }, `Line ${p.line}, column ${p.column}: ${p.message}`));
      }
    } else if (g.unschedulable.length > 0) {
      for (const p of g.problems.filter((x) => /cycle/i.test(x.message)).slice(0, 3)) {
        parts.push(el('div', { class: 'problem' }, `Line ${p.line}: ${p.message}`));
      }
    }
  }
  const running = runningLine(s.run);
  if (running) {
    parts.push(running);
  }
  if (s.notice) {
    parts.push(el('div', { class: `notice notice-${s.notice.level}` }, s.notice.message));
  }
  if (s.rejected) {
    const box = el('div', { class: 'rejected', role: 'alert' });
    box.append(
      el('span', { class: 'codicon codicon-error', 'aria-hidden': 'true' }),
      document.createTextNode(
        ` The graph could not show an update from Ralph (${s.rejected.error}). ${s.graph ? 'Showing the last good picture.' : 'Nothing to show until a valid one arrives.'} Please report this with the Task Graph's log.`,
      ),
    );
    parts.push(box);
  }
  return parts;
}

/** The stories listed by name in the status line; the rest are counted. */
const LISTED = 6;

/**
 * What runs: one story as "▶ US-006 running · iteration 1/1 · 0:12"; several as "▶ 3 agents
 * running:" and a link per story ("US-001 1/10 · 0:12"). Each link shows that story's terminal.
 */
function runningLine(run: RunMessage): HTMLElement | undefined {
  const total = run.stories.length + (run.more ?? 0);
  if (total === 0) {
    return undefined;
  }
  const line = el('div', { class: 'running-line' });
  const link = (r: RunningStoryDto, text: string): HTMLButtonElement => {
    const b = el('button', { class: 'link run-link', title: `Show the terminal of ${r.storyId}'s agent`, 'data-story': r.storyId }, text);
    if (r.startedAt !== undefined) {
      b.append(' · ', el('span', { [ELAPSED_FROM]: String(r.startedAt) }, elapsed(r.startedAt, Date.now())));
    }
    b.addEventListener('click', () => post({ type: 'showTerminal', id: r.storyId }));
    return b;
  };
  const only = total === 1 ? run.stories[0] : undefined;
  if (only) {
    line.append(link(only, `▶ ${only.storyId} running · iteration ${iterationText(only)}`));
    return line;
  }
  line.append(`▶ ${total} agents running: `);
  run.stories.slice(0, LISTED).forEach((r, k) => {
    line.append(...(k > 0 ? [', '] : []), link(r, `${r.storyId} ${iterationText(r)}`));
  });
  const unlisted = total - Math.min(LISTED, run.stories.length);
  if (unlisted > 0) {
    line.append(` and ${unlisted} more`);
  }
  return line;
}
