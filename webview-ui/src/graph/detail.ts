/**
 * The detail pane of the editor page: the selected story's title, priority, description,
 * acceptance criteria and dependencies, editable. Each save posts one `editStory` (the host makes a
 * minimal, undoable edit of prd.json); dependencies are removed one by one or added through the
 * host's "Add blocker…" pick; a new story can be added behind the selected one.
 */
import { el, type GraphMessage, type GraphNodeDto, stateWords } from './model';
import { post } from './vscode';

type Field = HTMLElement & { value: string };

/** A story's long text, asked of the host when the story is selected (graph messages do not carry it). */
export interface StoryDetails {
  readonly id: string;
  readonly description: string;
  readonly acceptanceCriteria: readonly string[];
}

export class DetailPane {
  readonly root = el('aside', { class: 'detail', 'aria-label': 'Story details' });
  private shownId?: string;
  private shownKey = '';

  constructor(
    private readonly node: () => GraphNodeDto | undefined,
    private readonly graph: () => GraphMessage | undefined,
    private readonly details: () => StoryDetails | undefined,
  ) {}

  render(): void {
    const n = this.node();
    const d = n ? this.details() : undefined;
    const full = d && n && d.id === n.id ? d : undefined;
    const key = n ? JSON.stringify([n.id, n.title, n.priority, full?.description, full?.acceptanceCriteria, n.blockedBy, n.state]) : '';
    // Do not rebuild the form under the user's fingers when nothing about the story changed.
    if (key === this.shownKey && n?.id === this.shownId) {
      return;
    }
    this.shownKey = key;
    this.shownId = n?.id;
    if (!n) {
      this.root.replaceChildren(el('p', { class: 'hint' }, 'Select a story to see and edit it. Double-click opens it in prd.json.'), this.addStoryForm(undefined));
      return;
    }
    const heading = el('h2', {}, n.id);
    heading.append(el('span', { class: 'detail-state' }, ` · ${stateWords(n, false)}${n.wave !== null ? ` · wave ${n.wave + 1}` : ''}`));
    if (!full) {
      // the host answers within a moment; the form waits for the text it edits
      this.root.replaceChildren(heading, el('p', { class: 'hint', role: 'status' }, `Loading ${n.id}…`));
      return;
    }
    const title = this.field('vscode-textfield', 'Title', n.title);
    const priority = this.field('vscode-textfield', 'Priority', n.priority === null ? '' : String(n.priority));
    const description = this.field('vscode-textarea', 'Description', full.description);
    const criteria = this.field('vscode-textarea', 'Acceptance criteria (one per line)', full.acceptanceCriteria.join('\n'));
    const save = el('vscode-button', { class: 'save' }, 'Save changes');
    save.addEventListener('click', () => {
      const edits: [string, 'title' | 'priority' | 'description' | 'acceptanceCriteria', string | string[]][] = [];
      if (title.input.value !== n.title) {
        edits.push(['title', 'title', title.input.value]);
      }
      if (priority.input.value !== (n.priority === null ? '' : String(n.priority))) {
        edits.push(['priority', 'priority', priority.input.value]);
      }
      if (description.input.value !== full.description) {
        edits.push(['description', 'description', description.input.value]);
      }
      const lines = criteria.input.value.split('\n').map((x) => x.trim()).filter((x) => x !== '');
      if (JSON.stringify(lines) !== JSON.stringify(full.acceptanceCriteria)) {
        edits.push(['criteria', 'acceptanceCriteria', lines]);
      }
      for (const [, field, value] of edits) {
        post({ type: 'editStory', story: n.id, field, value });
      }
    });
    const deps = el('div', { class: 'deps' });
    deps.append(el('h3', {}, 'Waits on'));
    const list = el('ul', { class: 'dep-list' });
    for (const b of n.blockedBy) {
      const li = el('li');
      li.append(el('span', { class: 'dep-id' }, b));
      const blocker = this.graph()?.nodes.find((x) => x.id === b);
      if (blocker) {
        li.append(el('span', { class: 'dep-title' }, ` ${blocker.title}`));
      } else {
        li.append(el('span', { class: 'dep-unknown' }, ' (not a story in prd.json)'));
      }
      const remove = el('button', { class: 'icon-button codicon codicon-close', title: `Remove: ${n.id} no longer waits on ${b}`, 'aria-label': `Remove ${b} from the dependencies of ${n.id}` });
      remove.addEventListener('click', () => post({ type: 'removeDependency', story: n.id, blocker: b }));
      li.append(remove);
      list.append(li);
    }
    if (n.blockedBy.length === 0) {
      list.append(el('li', { class: 'hint' }, 'Nothing: it can run as soon as it is picked.'));
    }
    const add = el('vscode-button', { secondary: '', class: 'add-blocker' }, 'Add blocker…');
    add.addEventListener('click', () => post({ type: 'pickBlocker', story: n.id }));
    deps.append(list, add);
    const openLink = el('vscode-button', { secondary: '' }, 'Open in prd.json');
    openLink.addEventListener('click', () => post({ type: 'open', id: n.id }));
    this.root.replaceChildren(heading, title.box, priority.box, description.box, criteria.box, save, deps, openLink, this.addStoryForm(n));
  }

  private field(tag: 'vscode-textfield' | 'vscode-textarea', label: string, value: string): { box: HTMLElement; input: Field } {
    const box = el('div', { class: 'field' });
    const id = `f-${label.replace(/\W+/g, '-').toLowerCase()}`;
    const lab = el('label', { for: id }, label);
    const input = document.createElement(tag) as Field;
    input.id = id;
    input.value = value;
    if (tag === 'vscode-textarea') {
      input.setAttribute('rows', '4');
      input.setAttribute('resize', 'vertical');
    }
    input.setAttribute('aria-label', label);
    box.append(lab, input);
    return { box, input };
  }

  private addStoryForm(after: GraphNodeDto | undefined): HTMLElement {
    const box = el('div', { class: 'add-story' });
    box.append(el('h3', {}, after ? `New story that waits on ${after.id}` : 'New story'));
    const title = document.createElement('vscode-textfield') as Field;
    title.setAttribute('placeholder', 'Title of the new story');
    title.setAttribute('aria-label', 'Title of the new story');
    const add = el('vscode-button', { secondary: '' }, 'Add story');
    add.addEventListener('click', () => {
      const t = title.value.trim();
      if (t) {
        post({ type: 'addStory', title: t, blockedBy: after ? [after.id] : undefined });
        title.value = '';
      }
    });
    box.append(title, add);
    return box;
  }
}
