/**
 * The page's header: the toolbar (fit, zoom, direction, focus in the editor; "Open in Editor" in
 * the side bar; filters, folder choice, copy) and the search field. The buttons change the view
 * state or post a request; what is drawn follows through the page's `render`.
 */
import { el } from './model';
import type { PageState } from './state';
import { post } from './vscode';

export interface ToolbarActions {
  fit(): void;
  zoomBy(factor: number): void;
  render(): void;
  /** Selects story i as a click would, and puts the keyboard focus on it. */
  selectAndFocus(i: number): void;
}

export class Toolbar {
  readonly root = el('div', { class: 'header' });
  private readonly buttons = new Map<string, HTMLElement>();

  constructor(
    private readonly state: PageState,
    actions: ToolbarActions,
  ) {
    const bar = el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Task graph' });
    const view = state.view;
    const button = (key: string, icon: string, label: string, onClick: () => void, toggle = false): void => {
      const b = document.createElement('vscode-toolbar-button');
      b.setAttribute('icon', icon);
      b.setAttribute('label', label);
      b.setAttribute('title', label);
      b.dataset.action = key;
      if (toggle) {
        b.setAttribute('toggleable', '');
      }
      b.addEventListener('click', onClick);
      this.buttons.set(key, b);
      bar.append(b);
    };
    if (state.mode === 'editor') {
      button('fit', 'screen-full', 'Fit to view', () => actions.fit());
      button('zoomIn', 'zoom-in', 'Zoom in', () => actions.zoomBy(1.25));
      button('zoomOut', 'zoom-out', 'Zoom out', () => actions.zoomBy(0.8));
      button('direction', 'arrow-swap', 'Layout direction: left to right / top to bottom', () => {
        view.direction = view.direction === 'LR' ? 'TB' : 'LR';
        state.save();
        post({ type: 'setDirection', direction: view.direction });
      });
      button('focus', 'target', 'Focus: the selected story and its neighbours', () => {
        view.focus = !view.focus;
        state.save();
        actions.render();
        actions.fit();
      }, true);
    } else {
      button('openInEditor', 'type-hierarchy', 'Open Task Graph in Editor', () => post({ type: 'openInEditor' }));
    }
    button('hideDone', 'eye-closed', 'Hide done stories', () => {
      view.hideDone = !view.hideDone;
      state.save();
      actions.render();
    }, true);
    button('pickFolder', 'root-folder-opened', 'Choose prd.json… (this workspace has several)', () => post({ type: 'pickFolder' }));
    button('copyText', 'list-ordered', 'Copy as text (the waves)', () => post({ type: 'copy', format: 'text' }));
    button('copyMermaid', 'copy', 'Copy as Mermaid', () => post({ type: 'copy', format: 'mermaid' }));
    const search = document.createElement('vscode-textfield') as HTMLElement & { value: string };
    search.setAttribute('placeholder', 'Search stories');
    search.setAttribute('aria-label', 'Search stories by id or title');
    search.className = 'search';
    search.value = view.search;
    search.addEventListener('input', () => {
      view.search = search.value;
      state.save();
      actions.render();
    });
    search.addEventListener('keydown', (e: KeyboardEvent) => {
      if (e.key === 'Enter') {
        const first = [...(state.matches() ?? [])][0];
        if (first !== undefined) {
          actions.selectAndFocus(first);
        }
      }
    });
    this.root.append(bar, search);
  }

  /** The toggles show the view state; the folder choice shows only where there is a choice. */
  sync(): void {
    const set = (key: string, on: boolean): void => {
      const b = this.buttons.get(key) as (HTMLElement & { checked?: boolean }) | undefined;
      if (b) {
        b.checked = on;
        b.setAttribute('aria-pressed', String(on));
      }
    };
    set('hideDone', this.state.view.hideDone);
    set('focus', this.state.view.focus);
    // only a workspace with several prd.json files has a choice to offer
    this.buttons.get('pickFolder')?.toggleAttribute('hidden', (this.state.graph?.sources ?? 1) < 2);
  }
}
