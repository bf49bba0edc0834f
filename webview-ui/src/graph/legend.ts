/** The legend of the editor drawing: what an arrow, each state's icon, the critical path and a cycle look like. */
import { STORY_STATES, type StoryStateKey, themeColorVariable } from '../../../src/core/vocabulary';
import { el } from './model';

/** The states a drawing shows, each with what it means here beyond its name. */
const LEGEND: readonly [StoryStateKey, string][] = [
  ['done', ''],
  ['ready', ' (wave 1)'],
  ['next', ''],
  ['blocked', ' (later wave)'],
  ['invalid', ''],
  ['cycle', ' (dashed red edges)'],
];

export function legend(): HTMLElement {
  const box = el('div', { class: 'legend', role: 'note', 'aria-label': 'Legend' });
  const arrow = el('div', { class: 'legend-row' });
  arrow.append(el('span', { class: 'legend-arrow', 'aria-hidden': 'true' }, 'A ──▶ B'), document.createTextNode(' B waits on A (A blocks B)'));
  box.append(arrow);
  for (const [state, note] of LEGEND) {
    const words = STORY_STATES[state];
    const r = el('div', { class: `legend-row state-${state}` });
    r.append(el('span', { class: `legend-swatch codicon codicon-${words.codicon}`, 'aria-hidden': 'true' }), document.createTextNode(` ${words.spoken}${note}`));
    box.append(r);
  }
  const crit = el('div', { class: 'legend-row' });
  crit.append(el('span', { class: 'legend-critical', 'aria-hidden': 'true' }), document.createTextNode(' critical path · W2 = wave 2'));
  box.append(crit);
  return box;
}

/**
 * Each state's colour as a CSS custom property (`--done`, `--cycle`, …) on the page's root, from
 * the vocabulary's theme colour (graph.css draws with these; CSSOM, so the CSP allows it).
 */
export function applyStateColours(root: HTMLElement): void {
  for (const [state, words] of Object.entries(STORY_STATES)) {
    root.style.setProperty(`--${state}`, `var(${themeColorVariable(words.color)})`);
  }
}
