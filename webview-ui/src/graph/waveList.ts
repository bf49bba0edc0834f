/**
 * The side bar's rendering: the stories as a list by wave (then the unschedulable and the done
 * ones), readable at 300 px, one row per story with its state, title, marks and run status.
 */
import { artifactBadgeView } from './artifactBadge';
import { accessibleName, ELAPSED_FROM, el, elapsed, iconOf, iterationText } from './model';
import type { PageState } from './state';
import { post } from './vscode';

export interface WaveListActions {
  select(i: number): void;
  open(i: number): void;
}

export class WaveList {
  readonly root = el('div', { class: 'wave-list', role: 'tree', 'aria-label': 'Stories by wave' });

  constructor(
    private readonly state: PageState,
    private readonly actions: WaveListActions,
  ) {}

  /** Puts the keyboard focus on story i's row. */
  focus(i: number): void {
    this.root.querySelector<HTMLElement>(`.row[data-index="${i}"]`)?.focus();
  }

  render(): void {
    const s = this.state;
    const g = s.graph;
    const d = s.derived;
    const rows: HTMLElement[] = [];
    if (!g || !d) {
      this.root.replaceChildren();
      return;
    }
    const selected = s.selectedIndex();
    const q = s.matches();
    const row = (i: number): HTMLElement => {
      const n = g.nodes[i];
      const run = s.running.get(n.id);
      const running = run !== undefined;
      const wait = running ? undefined : s.waits.get(n.id);
      const r = el('div', {
        class: `row state-${n.state}${n.critical ? ' critical' : ''}${n.inCycle ? ' cycle' : ''}${running ? ' running' : ''}${i === selected ? ' selected' : ''}${q?.has(i) ? ' match' : ''}`,
        role: 'treeitem',
        tabindex: i === (selected ?? -1) ? '0' : '-1',
        'aria-label': accessibleName(n, running, wait?.text),
        'aria-selected': i === selected ? 'true' : 'false',
        'data-id': n.id,
        'data-index': String(i),
      });
      const icon = iconOf(n, running);
      r.append(el('span', { class: `codicon codicon-${icon.codicon} state-icon`, 'aria-hidden': 'true' }));
      // At 300 px a long id or title ends in an ellipsis (graph.css); hovering shows it whole.
      r.append(el('span', { class: 'id', title: n.id }, n.id));
      r.append(el('span', { class: 'title', title: n.title }, n.title));
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
      if (run) {
        const mark = el('button', { class: 'run-mark', title: `Show the terminal of ${n.id}'s agent`, 'data-story': n.id }, iterationText(run));
        if (run.startedAt !== undefined) {
          mark.append(' · ', el('span', { [ELAPSED_FROM]: String(run.startedAt) }, elapsed(run.startedAt, Date.now())));
        }
        mark.addEventListener('click', (e) => {
          e.stopPropagation();
          post({ type: 'showTerminal', id: n.id });
        });
        r.append(mark);
      } else if (wait) {
        const mark = el('span', { class: 'wait-mark', title: `${n.id} ${wait.text}` });
        mark.append(el('span', { class: 'codicon codicon-debug-pause', 'aria-hidden': 'true' }), el('span', {}, wait.short));
        r.append(mark);
      } else if (s.outcomes.get(n.id) && n.state !== 'done') {
        r.append(el('span', { class: 'outcome', title: 'Last run' }, s.outcomes.get(n.id) ?? ''));
      }
      r.addEventListener('click', () => this.actions.select(i));
      r.addEventListener('dblclick', () => this.actions.open(i));
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
        if (!s.hidden(i)) {
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
    this.root.replaceChildren(...rows);
    if (selected !== undefined) {
      this.root.querySelector<HTMLElement>('.row.selected')?.scrollIntoView({ block: 'nearest' });
    } else {
      this.root.querySelector<HTMLElement>('.row')?.setAttribute('tabindex', '0');
    }
  }
}
