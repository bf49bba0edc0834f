/**
 * The detail pane of the editor page: the selected story's title, priority, description,
 * acceptance criteria and dependencies, editable. Each save posts one `editStory` (the host makes a
 * minimal, undoable edit of prd.json); dependencies are removed one by one or added through the
 * host's "Add blocker…" pick; a new story can be added behind the selected one.
 *
 * The form is built once per selected story and never rebuilt under the user's fingers: when
 * prd.json changes (an agent wrote it), a field the user has not touched takes the new text, and a
 * field with a draft keeps it while a notice says the story changed on disk, with "Keep mine" and
 * "Take theirs". A field the host had to shorten (too long for the page) is shown read-only:
 * saving it would cut the text.
 */
import { el, type GraphMessage, type GraphNodeDto, stateWords } from './model';
import { post } from './vscode';

type Field = HTMLElement & { value: string };
type FieldName = 'title' | 'priority' | 'description' | 'acceptanceCriteria';

const FIELD_WORDS: Record<FieldName, string> = { title: 'title', priority: 'priority', description: 'description', acceptanceCriteria: 'acceptance criteria' };

/** A story's long text, asked of the host when the story is selected (graph messages do not carry it). */
export interface StoryDetails {
  readonly id: string;
  readonly description: string;
  readonly acceptanceCriteria: readonly string[];
  readonly truncated?: readonly ('description' | 'acceptanceCriteria')[];
}

interface FormField {
  readonly input: Field;
  /** The text on disk the field was last in step with: the user's draft is what differs from it. */
  base: string;
  /** The newer text on disk, while the field holds a draft that differs from both. */
  theirs?: string;
}

interface Form {
  readonly id: string;
  readonly fields: Map<FieldName, FormField>;
  readonly heading: HTMLElement;
  readonly deps: HTMLElement;
  readonly notice: HTMLElement;
  /** Which fields are read-only (shortened by the host): when that changes, the form is built again. */
  readonly readOnlyKey: string;
  depsKey: string;
}

export class DetailPane {
  readonly root = el('aside', { class: 'detail', 'aria-label': 'Story details' });
  private form?: Form;
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
    if (n && full && this.form?.id === n.id && this.form.readOnlyKey === readOnlyKey(n, full)) {
      this.update(this.form, n, full);
      return;
    }
    const key = JSON.stringify([n?.id, n?.state, n?.wave, full !== undefined]);
    if (key === this.shownKey && !this.form) {
      return;
    }
    this.shownKey = key;
    this.form = undefined;
    if (!n) {
      this.root.replaceChildren(el('p', { class: 'hint' }, 'Select a story to see and edit it. Double-click opens it in prd.json.'), this.addStoryForm(undefined));
      return;
    }
    if (!full) {
      // the host answers within a moment; the form waits for the text it edits
      this.root.replaceChildren(this.heading(n), el('p', { class: 'hint', role: 'status' }, `Loading ${n.id}…`));
      return;
    }
    this.form = this.build(n, full);
  }

  private heading(n: GraphNodeDto): HTMLElement {
    const heading = el('h2', {}, n.id);
    heading.append(el('span', { class: 'detail-state' }, ` · ${stateWords(n, false)}${n.wave !== null ? ` · wave ${n.wave + 1}` : ''}`));
    return heading;
  }

  private build(n: GraphNodeDto, full: StoryDetails): Form {
    const values = valuesOf(n, full);
    const readOnly = (name: FieldName): boolean => (name === 'title' ? n.titleTruncated === true : (full.truncated ?? []).includes(name as 'description'));
    const boxes: HTMLElement[] = [];
    const fields = new Map<FieldName, FormField>();
    for (const [name, tag, label] of [
      ['title', 'vscode-textfield', 'Title'],
      ['priority', 'vscode-textfield', 'Priority'],
      ['description', 'vscode-textarea', 'Description'],
      ['acceptanceCriteria', 'vscode-textarea', 'Acceptance criteria (one per line)'],
    ] as const) {
      const f = this.field(tag, label, values[name], readOnly(name));
      boxes.push(f.box);
      fields.set(name, { input: f.input, base: values[name] });
    }
    const form: Form = { id: n.id, fields, heading: el('div'), deps: el('div', { class: 'deps' }), notice: el('div', { class: 'disk-change-slot' }), readOnlyKey: readOnlyKey(n, full), depsKey: '' };
    form.heading.append(this.heading(n));
    const save = el('vscode-button', { class: 'save' }, 'Save changes');
    save.addEventListener('click', () => this.save(form));
    const openLink = el('vscode-button', { secondary: '' }, 'Open in prd.json');
    openLink.addEventListener('click', () => post({ type: 'open', id: n.id }));
    this.renderDeps(form, n);
    this.root.replaceChildren(form.heading, form.notice, ...boxes, save, form.deps, openLink, this.addStoryForm(n));
    return form;
  }

  /** New data for the story the form shows: untouched fields follow it, drafts stay (with a notice). */
  private update(form: Form, n: GraphNodeDto, full: StoryDetails): void {
    form.heading.replaceChildren(this.heading(n));
    this.renderDeps(form, n);
    const values = valuesOf(n, full);
    for (const [name, f] of form.fields) {
      const theirs = values[name];
      const mine = f.input.value;
      if (theirs === f.base) {
        f.theirs = undefined;
      } else if (mine === f.base || f.input.hasAttribute('readonly')) {
        f.input.value = theirs;
        f.base = theirs;
        f.theirs = undefined;
      } else if (mine === theirs) {
        f.base = theirs;
        f.theirs = undefined;
      } else {
        f.theirs = theirs;
      }
    }
    this.renderNotice(form);
  }

  private renderNotice(form: Form): void {
    const changed = [...form.fields].filter(([, f]) => f.theirs !== undefined);
    if (changed.length === 0) {
      form.notice.replaceChildren();
      return;
    }
    const box = el('div', { class: 'disk-change', role: 'alert' });
    box.append(el('p', {}, `${form.id} changed on disk while you were editing it (${changed.map(([name]) => FIELD_WORDS[name]).join(', ')}). Your text is still here.`));
    const keep = el('vscode-button', { secondary: '' }, 'Keep mine');
    keep.addEventListener('click', () => {
      // the draft now stands against the new text: Save writes it over what is on disk
      for (const [, f] of changed) {
        f.base = f.theirs ?? f.base;
        f.theirs = undefined;
      }
      this.renderNotice(form);
    });
    const take = el('vscode-button', { secondary: '' }, 'Take theirs (the new text)');
    take.addEventListener('click', () => {
      for (const [, f] of changed) {
        f.input.value = f.theirs ?? f.input.value;
        f.base = f.input.value;
        f.theirs = undefined;
      }
      this.renderNotice(form);
    });
    box.append(keep, take);
    form.notice.replaceChildren(box);
  }

  private save(form: Form): void {
    for (const [name, f] of form.fields) {
      if (f.input.hasAttribute('readonly') || f.input.value === f.base) {
        continue;
      }
      if (name === 'acceptanceCriteria') {
        const lines = criteriaLines(f.input.value);
        if (JSON.stringify(lines) !== JSON.stringify(criteriaLines(f.base))) {
          post({ type: 'editStory', story: form.id, field: name, value: lines });
        }
      } else {
        post({ type: 'editStory', story: form.id, field: name, value: f.input.value });
      }
    }
  }

  private renderDeps(form: Form, n: GraphNodeDto): void {
    const g = this.graph();
    const titleOf = (b: string): string | undefined => g?.nodes.find((x) => x.id === b)?.title;
    const key = JSON.stringify([n.blockedBy, n.blockedBy.map(titleOf)]);
    if (key === form.depsKey) {
      return;
    }
    form.depsKey = key;
    const list = el('ul', { class: 'dep-list' });
    for (const b of n.blockedBy) {
      const li = el('li');
      li.append(el('span', { class: 'dep-id' }, b));
      const title = titleOf(b);
      if (title !== undefined) {
        li.append(el('span', { class: 'dep-title' }, ` ${title}`));
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
    form.deps.replaceChildren(el('h3', {}, 'Waits on'), list, add);
  }

  private field(tag: 'vscode-textfield' | 'vscode-textarea', label: string, value: string, readOnly: boolean): { box: HTMLElement; input: Field } {
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
    if (readOnly) {
      input.setAttribute('readonly', '');
      box.append(el('p', { class: 'hint' }, 'Too long to show whole here: shortened, and not editable in the graph. Edit it in prd.json.'));
    }
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

function readOnlyKey(n: GraphNodeDto, full: StoryDetails): string {
  return JSON.stringify([n.titleTruncated === true, full.truncated ?? []]);
}

/** The text of each field as prd.json has it now. */
function valuesOf(n: GraphNodeDto, full: StoryDetails): Record<FieldName, string> {
  return { title: n.title, priority: n.priority === null ? '' : String(n.priority), description: full.description, acceptanceCriteria: full.acceptanceCriteria.join('\n') };
}

function criteriaLines(text: string): string[] {
  return text
    .split('\n')
    .map((x) => x.trim())
    .filter((x) => x !== '');
}
