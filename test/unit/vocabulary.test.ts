/**
 * One vocabulary (src/core/vocabulary.ts): every state has its word, codicon, theme colour and
 * spoken name, and the Stories tree (present.ts), the task graph page (model.ts, legend colours),
 * the CLI and the status bar name a state with the table's entries, so a story in a cycle is
 * called the same everywhere.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { presentStory } from '../../src/core/prd/present';
import { GraphMessageBuilder } from '../../src/core/taskGraph/message';
import { STORY_STATE_KEYS, STORY_STATES, themeColorVariable } from '../../src/core/vocabulary';
import { GLYPHS, iconOf, stateWords } from '../../webview-ui/src/graph/model';
import { analyze, cli, makePrd, type StoryInput } from './helpers';

const root = path.resolve(__dirname, '../..');
const codiconCss = readFileSync(path.join(root, 'node_modules/@vscode/codicons/dist/codicon.css'), 'utf8');

/** The codicon font's glyph of an icon id, as codicon.css has it; undefined when there is no such icon. */
function codiconGlyph(id: string): string | undefined {
  const m = new RegExp(`\\.codicon-${id}:before \\{ content: "\\\\([0-9a-f]{4})"`).exec(codiconCss);
  return m ? String.fromCharCode(parseInt(m[1], 16)) : undefined;
}

/** A backlog with a story of every state the schedule gives: done, next, ready, blocked, in a cycle, and one that can never run. */
const BACKLOG: StoryInput[] = [
  { id: 'DONE', passes: true },
  { id: 'NEXT', priority: 1, blockedBy: ['DONE'] },
  { id: 'READY', priority: 2 },
  { id: 'BLOCKED', priority: 1, blockedBy: ['NEXT'] },
  { id: 'LOOP-A', blockedBy: ['LOOP-B'] },
  { id: 'LOOP-B', blockedBy: ['LOOP-A'] },
  { id: 'BEHIND', blockedBy: ['LOOP-A'] },
];

/** The graph as the page receives it. */
const pageGraph = (analysis: ReturnType<typeof analyze>) => new GraphMessageBuilder().build(analysis, 'prd.json', 'LR');

describe('one vocabulary for story states', () => {
  it('gives every state a word, a codicon that exists, a theme colour and a spoken name', () => {
    assert.deepEqual([...STORY_STATE_KEYS].sort(), ['blocked', 'cycle', 'done', 'invalid', 'next', 'ready', 'running', 'stale']);
    for (const key of STORY_STATE_KEYS) {
      const s = STORY_STATES[key];
      for (const field of ['word', 'codicon', 'color', 'spoken'] as const) {
        assert.ok(typeof s[field] === 'string' && s[field].trim() !== '', `${key}.${field}`);
      }
      assert.ok(codiconGlyph(s.codicon), `${key}: codicon "${s.codicon}" is in @vscode/codicons`);
      // The page draws icons as SVG text: its glyph of each icon must be the font's.
      assert.equal(GLYPHS[s.codicon], codiconGlyph(s.codicon), `${key}: the page's glyph of ${s.codicon}`);
      assert.match(s.color, /^[a-zA-Z]+(\.[a-zA-Z]+)*$/, `${key}: a theme colour id`);
      assert.match(themeColorVariable(s.color), /^--vscode-[a-zA-Z-]+$/);
    }
  });

  it('names a story in a cycle the same in the tree, the graph and the CLI', () => {
    const analysis = analyze(makePrd(BACKLOG));
    const g = pageGraph(analysis);
    const loop = analysis.readiness.states.find((s) => s.story.id === 'LOOP-A');
    assert.ok(loop);
    const problems = analysis.problems.filter((p) => p.storyId === 'LOOP-A');
    const tree = presentStory(loop, problems, () => 'title');
    const node = g.nodes.find((n) => n.id === 'LOOP-A');
    assert.ok(node);
    const cycle = STORY_STATES.cycle;
    assert.equal(tree.status, 'cycle');
    assert.match(tree.description, new RegExp(` · ${cycle.spoken}$`), 'the tree row');
    assert.ok(tree.tooltip.includes(`$(${cycle.codicon}) In a dependency cycle`), 'the tree tooltip');
    assert.equal(stateWords(node, false), cycle.spoken, 'the graph node');
    assert.equal(iconOf(node, false).codicon, cycle.codicon);
    const text = cli(['graph', '--prd', 'p.json'], { 'p.json': makePrd(BACKLOG) }).stdout;
    assert.ok(text.includes(`  LOOP-A: ${cycle.spoken}\n`), text);
    assert.ok(text.includes(`  BEHIND: waits on LOOP-A, which ${STORY_STATES.invalid.spoken}\n`), text);
  });

  it('the tree, the graph and the CLI take every state word from the table', () => {
    const analysis = analyze(makePrd(BACKLOG));
    const g = pageGraph(analysis);
    const expected = { DONE: 'done', NEXT: 'next', READY: 'ready', BLOCKED: 'blocked', 'LOOP-A': 'cycle', 'LOOP-B': 'cycle' } as const;
    for (const [id, key] of Object.entries(expected)) {
      const state = analysis.readiness.states.find((s) => s.story.id === id);
      assert.ok(state);
      const tree = presentStory(state, [], () => 'title');
      assert.equal(tree.status, key, id);
      const words = STORY_STATES[key];
      assert.ok(tree.description.includes(key === 'cycle' ? words.spoken : words.word), `${id}: ${tree.description}`);
      assert.ok(tree.tooltip.includes(`$(${words.codicon})`), `${id}: the tooltip's icon`);
      const node = g.nodes.find((n) => n.id === id);
      assert.ok(node);
      assert.equal(stateWords(node, false), words.spoken, `${id} in the graph`);
      assert.equal(iconOf(node, false).codicon, words.codicon, `${id}'s icon in the graph`);
    }
    const behind = g.nodes.find((n) => n.id === 'BEHIND');
    assert.ok(behind);
    assert.equal(stateWords(behind, false), STORY_STATES.invalid.spoken);
    assert.equal(stateWords(behind, true), STORY_STATES.running.spoken);
    assert.equal(iconOf(behind, true).codicon, STORY_STATES.running.codicon);
    const blocked: StoryInput[] = [{ id: 'A', blockedBy: ['B'] }, { id: 'B', blockedBy: ['A'] }];
    assert.match(cli(['next', '--prd', 'p.json'], { 'p.json': makePrd(blocked) }).stdout, new RegExp(`stories remain, all ${STORY_STATES.blocked.word}\\.`));
  });

  it('the page, the tree and the status bar read icons and colours from the table, not a table of their own', () => {
    // The page's colours: graph.css declares no state colour of its own; the legend sets them from the table.
    const css = readFileSync(path.join(root, 'webview-ui/src/graph/graph.css'), 'utf8');
    for (const key of STORY_STATE_KEYS) {
      assert.doesNotMatch(css, new RegExp(`--${key}\\s*:`), `graph.css declares --${key}`);
    }
    // No codicon id of a state written out where a state is drawn: each comes from STORY_STATES.
    const codicons = [...new Set(STORY_STATE_KEYS.map((k) => STORY_STATES[k].codicon))].filter((c) => c !== 'error' && c !== 'history');
    for (const file of ['src/views/storyNodes.ts', 'src/views/statusBar.ts', 'src/core/prd/present.ts', 'webview-ui/src/graph/legend.ts', 'webview-ui/src/graph/model.ts']) {
      const text = readFileSync(path.join(root, file), 'utf8').replace(/export const GLYPHS[\s\S]*?\n\};/, '');
      for (const c of codicons) {
        assert.ok(!new RegExp(`['(\`$]${c}[)'~\`]`).test(text), `${file} names the codicon "${c}" itself`);
      }
    }
  });
});
