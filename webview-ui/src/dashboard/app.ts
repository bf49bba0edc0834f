/**
 * The Run Dashboard page (issue 21): the filter bar (feature, from, to), the headline, and one
 * section per chart with its summary (the chart's accessible name), its drawing and its table view
 * (the Table button toggles it). Messages from the host are validated (dashboardProtocol.ts) before
 * anything is drawn; every text goes in as text.
 */
import { type ChartData, type DashboardFilter, type DashboardHostMessage, parseDashboardHostMessage } from '../../../src/core/webview/dashboardProtocol';
import { el } from '../graph/model';
import { api } from '../graph/vscode';
import { drawChart } from './chart';

/** How many charts are drawn before the first paint (those a window shows at once); the others just after. */
const FIRST_PAINT_CHARTS = 2;

/** What the page keeps across hiding: which charts show their table. */
function tablesShown(state: unknown): Set<string> {
  const list = (state as { tables?: unknown } | undefined)?.tables;
  return new Set(Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : []);
}

export class DashboardApp {
  private readonly tables = tablesShown(api.getState());
  private readonly feature = el('select', { id: 'feature', 'aria-label': 'Feature' });
  private readonly since = el('input', { id: 'since', type: 'date', 'aria-label': 'From' });
  private readonly until = el('input', { id: 'until', type: 'date', 'aria-label': 'To' });
  private readonly headline = el('p', { class: 'headline', role: 'status' });
  private readonly charts = el('div', { class: 'charts' });
  /** The message shown last: a drawing left for after the first paint is made only for it. */
  private generation = 0;

  constructor(private readonly root: HTMLElement) {
    root.textContent = '';
    root.removeAttribute('aria-busy');
    root.classList.add('dash');
    const bar = el('div', { class: 'filters' });
    const label = (text: string, control: HTMLElement): HTMLLabelElement => {
      const l = el('label', {}, text);
      l.appendChild(control);
      return l;
    };
    bar.append(label('Feature ', this.feature), label('From ', this.since), label('To ', this.until));
    root.append(el('h1', {}, 'Run Dashboard'), bar, this.headline, this.charts);
    for (const control of [this.feature, this.since, this.until]) {
      control.addEventListener('change', () => api.postMessage({ type: 'filter', filter: this.filter() }));
    }
    window.addEventListener('message', (e: MessageEvent) => {
      const parsed = parseDashboardHostMessage(e.data);
      if (parsed.ok) {
        this.show(parsed.message);
      } else {
        this.headline.textContent = `The dashboard could not show an update (${parsed.error}).`;
      }
    });
    api.postMessage({ type: 'ready' });
  }

  private filter(): DashboardFilter {
    return {
      ...(this.feature.value ? { feature: this.feature.value } : {}),
      ...(this.since.value ? { since: this.since.value } : {}),
      ...(this.until.value ? { until: this.until.value } : {}),
    };
  }

  private show(m: DashboardHostMessage): void {
    if (m.type === 'empty') {
      this.headline.textContent = m.message;
      this.charts.textContent = '';
      this.root.dataset.runs = '0';
      return;
    }
    this.feature.textContent = '';
    this.feature.appendChild(el('option', { value: '' }, 'All features'));
    for (const f of m.features) {
      const o = el('option', { value: f.name }, `${f.name} (${f.runs} runs)`);
      o.selected = f.name === m.filter.feature;
      this.feature.appendChild(o);
    }
    this.since.value = m.filter.since ?? '';
    this.until.value = m.filter.until ?? '';
    this.headline.textContent = `${m.folder}: ${m.headline}${m.skipped > 0 ? ` · ${m.skipped} unreadable line${m.skipped === 1 ? '' : 's'} of runs.jsonl skipped` : ''}`;
    this.charts.textContent = '';
    const generation = ++this.generation;
    const later: (() => void)[] = [];
    m.charts.forEach((c, i) => {
      const { section, draw } = this.section(c);
      this.charts.appendChild(section);
      // The first charts are drawn for the first paint; the ones below the fold just after it
      // (bench-dashboard-workbench.mjs: the first paint with 10,000 runs), unless a newer message came.
      if (i < FIRST_PAINT_CHARTS) {
        draw();
      } else {
        later.push(draw);
      }
    });
    if (later.length > 0) {
      requestAnimationFrame(() =>
        setTimeout(() => {
          if (generation === this.generation) {
            later.forEach((draw) => draw());
          }
        }),
      );
    }
  }

  /** A chart's section, its drawing made by `draw` (the summary, heading and table are there before). */
  private section(c: ChartData): { section: HTMLElement; draw: () => void } {
    const s = el('section', { class: 'chart', id: `chart-${c.id}`, 'aria-labelledby': `title-${c.id}` });
    const head = el('div', { class: 'chart-head' });
    const toggle = el('vscode-button', { secondary: '', class: 'table-toggle', 'aria-controls': `table-${c.id}` }, 'Table');
    head.append(el('h2', { id: `title-${c.id}` }, c.title), toggle);
    const summary = el('p', { class: 'summary', id: `summary-${c.id}` }, c.summary);
    const drawing = el('div', { class: 'drawing' });
    // The table is built when first shown: thousands of hidden rows would double the first paint (bench-dashboard.mjs).
    const table = el('div', { class: 'table', id: `table-${c.id}` });
    let built = false;
    const apply = (shown: boolean): void => {
      if (shown && !built) {
        this.fillTable(table, c);
        built = true;
      }
      table.hidden = !shown;
      drawing.style.display = shown ? 'none' : '';
      toggle.setAttribute('aria-pressed', String(shown));
      toggle.textContent = shown ? 'Chart' : 'Table';
    };
    apply(this.tables.has(c.id));
    toggle.addEventListener('click', () => {
      const shown = !this.tables.has(c.id);
      if (shown) {
        this.tables.add(c.id);
      } else {
        this.tables.delete(c.id);
      }
      api.setState({ tables: [...this.tables] });
      apply(shown);
    });
    s.append(head, summary, drawing, table);
    return { section: s, draw: () => drawing.appendChild(drawChart(c, `summary-${c.id}`)) };
  }

  private fillTable(wrap: HTMLElement, c: ChartData): void {
    const t = el('table');
    t.appendChild(el('caption', {}, c.title));
    const head = el('tr');
    for (const col of c.columns) {
      head.appendChild(el('th', { scope: 'col' }, col));
    }
    t.appendChild(el('thead')).appendChild(head);
    const body = t.appendChild(el('tbody'));
    for (const row of c.rows) {
      const tr = el('tr');
      for (const cell of row) {
        tr.appendChild(el('td', {}, cell));
      }
      body.appendChild(tr);
    }
    wrap.appendChild(t);
    if (c.rows.length === 0) {
      wrap.appendChild(el('p', {}, 'Nothing to list.'));
    }
    if (c.note) {
      wrap.appendChild(el('p', { class: 'note' }, c.note));
    }
  }
}
