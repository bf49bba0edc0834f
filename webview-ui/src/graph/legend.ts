/** The legend of the editor drawing: what an arrow, each state's icon, the critical path and a cycle look like. */
import { el } from './model';

export function legend(): HTMLElement {
  const box = el('div', { class: 'legend', role: 'note', 'aria-label': 'Legend' });
  const arrow = el('div', { class: 'legend-row' });
  arrow.append(el('span', { class: 'legend-arrow', 'aria-hidden': 'true' }, 'A ──▶ B'), document.createTextNode(' B waits on A (A blocks B)'));
  box.append(arrow);
  const states: [string, string, string][] = [
    ['done', 'pass-filled', 'done'],
    ['ready', 'circle-large-outline', 'ready (wave 1)'],
    ['next', 'play-circle', 'runs next'],
    ['blocked', 'lock', 'blocked (later wave)'],
    ['invalid', 'error', 'can never run'],
  ];
  for (const [state, icon, words] of states) {
    const r = el('div', { class: `legend-row state-${state}` });
    r.append(el('span', { class: `legend-swatch codicon codicon-${icon}`, 'aria-hidden': 'true' }), document.createTextNode(` ${words}`));
    box.append(r);
  }
  const crit = el('div', { class: 'legend-row' });
  crit.append(el('span', { class: 'legend-critical', 'aria-hidden': 'true' }), document.createTextNode(' critical path · W2 = wave 2'));
  box.append(crit);
  const cyc = el('div', { class: 'legend-row' });
  cyc.append(el('span', { class: 'codicon codicon-sync', 'aria-hidden': 'true' }), document.createTextNode(' in a cycle (dashed red edges)'));
  box.append(cyc);
  return box;
}
